"""The working folder's files as the loop sees them: attachments and their bounded previews
(`attachments`, `file_formats`), the files a task names (`mentions`), notes and files sent with
the next task (`next_task`), and what a block created, changed or deleted (`workspace`)."""
