"""Pasted terminal sessions in shell blocks: the commands after the `$ ` prompts run, the
output lines are skipped, line numbers are kept (issue 23)."""

from __future__ import annotations

import pytest

from languages.shell_console import console_commands, is_console_paste

pytestmark = pytest.mark.fast

SESSION = """\
$ echo hello > a.txt
$ cat a.txt
hello
$ for i in 1 2; do
>   echo $i
> done
1
2
$ cat > b.txt <<'EOF'
> line one
> EOF
$ echo 'open
> quote'
open
quote
$ ls \\
  -la
total 0
> an output line that looks like a continuation"""

COMMANDS = """\
echo hello > a.txt
cat a.txt

for i in 1 2; do
  echo $i
done


cat > b.txt <<'EOF'
line one
EOF
echo 'open
quote'


ls \\
  -la

"""


def test_only_the_commands_are_left_line_for_line():
    assert console_commands(SESSION) == COMMANDS
    assert len(console_commands(SESSION).split("\n")) == len(SESSION.split("\n"))


@pytest.mark.parametrize("code", ["echo hi\n$ not first", "npm install", "$HOME/bin/x", "",
                                  "# $ comment"])
def test_a_block_that_does_not_start_with_a_prompt_is_not_a_paste(code):
    assert not is_console_paste(code) and console_commands(code) is None


def test_a_heredoc_without_continuation_prompts_keeps_its_body():
    code = "$ cat > c.txt << END\nplain body\n$ not a prompt here\nEND\n$ wc -l c.txt\n2 c.txt"
    assert console_commands(code) == ("cat > c.txt << END\nplain body\n$ not a prompt here\n"
                                      "END\nwc -l c.txt\n")
