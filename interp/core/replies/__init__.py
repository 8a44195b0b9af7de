"""From a model's reply to blocks, and from blocks back to text: fenced blocks (`fences`), tool
calls written as text (`textcalls`), the steps a reply proposes (`steps`), whether the execute
tool is offered (`tool_choice`), and the report the model reads of each block (`report`,
`figures` for what a figure plots)."""
