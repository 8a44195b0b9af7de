"""Where a reply's first block that runs ends (first_block_end), and which blocks run
(steps_from_reply), on replies from real transcripts."""

from __future__ import annotations

from interp.core.replies.steps import (CUT_OFF_BLOCK, STOPPED_BLOCK, first_block_end, installs_only,
                                        steps_from_reply, untagged_code)
from interp.models.base import Reply
from languages import Registry
from languages.python import PythonRunner
from languages.shell import ShellRunner

REGISTRY = Registry([PythonRunner, ShellRunner])
# Qwen2.5-Coder-1.5B on the task benchmark (2026-11-27): the block prints [ 5. 10.], and the
# sentence under it, written before any output, was its final answer too.
EIGEN = ("```python\nimport numpy as np\n\nmatrix = np.array([[6, -2], [-2, 9]])\n"
         "eigenvalues = np.linalg.eigvals(matrix)\nprint(eigenvalues)\n```\n\n"
         "The eigenvalues of the matrix [[6, -2], [-2, 9]] are 3 and 5.")


def test_the_first_block_ends_after_its_closing_fence_line():
    end = first_block_end(EIGEN, REGISTRY)
    assert EIGEN[:end].endswith("print(eigenvalues)\n```\n")
    assert EIGEN[end:] == "\nThe eigenvalues of the matrix [[6, -2], [-2, 9]] are 3 and 5."


def test_nothing_ends_before_the_closing_fence_line_has_ended():
    cut = EIGEN.index("```\n\nThe")
    assert first_block_end(EIGEN[:cut], REGISTRY) is None  # still inside the block
    assert first_block_end(EIGEN[:cut + 3], REGISTRY) is None  # "```" could still grow
    assert first_block_end(EIGEN[:cut + 4], REGISTRY) == cut + 4


def test_blocks_that_do_not_run_are_passed_over():
    text = ("Data:\n```csv\nname,score\nAda,3\n```\nOutput:\n```output\n3\n```\n"
            "```ruby\nputs 1\n```\n```bash\nwc -l logs/*.log\n```\nThat is all.")
    end = first_block_end(text, REGISTRY)
    assert text[:end].endswith("```bash\nwc -l logs/*.log\n```\n")


def test_a_console_transcript_with_prompts_runs_and_ends_there():
    text = "```console\n$ ls\n```\nThen the next step."
    assert text[:first_block_end(text, REGISTRY)] == "```console\n$ ls\n```\n"


def test_a_reply_without_a_block_has_no_end():
    assert first_block_end("The answer is 42.", REGISTRY) is None
    assert first_block_end("```python\nprint(1)", REGISTRY) is None  # never closed


# Qwen2.5-Coder-1.5B on the scatter task (2026-11-27): its reply opened with an install step and
# went on to the code that computes the correlation; ended after the install, it never wrote it.
SCATTER = ("1. **Install Required Libraries**:\n   Ensure you have the necessary libraries "
           "installed:\n   ```bash\n   pip install pandas matplotlib\n   ```\n\n"
           "2. **Read the CSV File**:\n\n```python\nimport pandas as pd\n"
           "df = pd.read_csv('people.csv')\nprint(df['weight_kg'].corr(df['height_cm']))\n```\n"
           "The correlation coefficient is 0.78.")


def test_a_block_that_only_installs_packages_does_not_end_the_reply():
    end = first_block_end(SCATTER, REGISTRY)
    assert SCATTER[:end].endswith("print(df['weight_kg'].corr(df['height_cm']))\n```\n")


def test_what_counts_as_only_installing():
    assert installs_only("pip install pandas matplotlib")
    assert installs_only("# setup\n!pip install -q openpyxl\npython3 -m pip install sympy")
    assert installs_only("sudo apt-get install -y jq\nnpm install lodash")
    assert not installs_only("pip install pandas && python report.py")
    assert not installs_only("pip list")
    assert not installs_only("")


# Qwen2.5-Coder-1.5B in interp --local (tmux, 2026-11-27), asked to save its fix of summary.py
# with a here-document: the right block, without a language tag (shortened).
QWEN_UNTAGGED_SAVE = ("Here is the fixed script:\n\n```\ncat > summary.py <<'EOF'\nimport csv\n"
                      "print('grand total:', 50)\nEOF\npython3 summary.py\n```\n\n"
                      "This saves the fix and runs it.")


def test_an_untagged_block_that_writes_a_file_with_a_here_document_runs_as_shell():
    steps = steps_from_reply(Reply(QWEN_UNTAGGED_SAVE, (), None, "stop"), REGISTRY)
    assert [(s.language, s.code.splitlines()[0], s.problem) for s in steps] == [
        ("shell", "cat > summary.py <<'EOF'", None)]
    assert not untagged_code(QWEN_UNTAGGED_SAVE)  # it runs: no request to tag it
    end = first_block_end(QWEN_UNTAGGED_SAVE, REGISTRY)
    assert QWEN_UNTAGGED_SAVE[:end].endswith("python3 summary.py\n```\n")


def test_other_untagged_blocks_still_do_not_run():
    unended = "```\ncat > a.txt <<EOF\nhello\n```\n"  # no EOF line: not a here-document
    listing = "```\ncat > a.txt\n```\n"
    for text in (unended, listing):
        assert steps_from_reply(Reply(text, (), None, "stop"), REGISTRY) == []
    assert untagged_code(unended)  # asked to tag it, as before


def test_a_block_left_open_by_a_reply_stopped_repeating_itself_does_not_run():
    looping = "```python\nimport math\n" + "print(math.pi)\n" * 60
    stopped = steps_from_reply(Reply(looping, (), None, "repeating"), REGISTRY)
    assert [(s.language, s.problem) for s in stopped] == [("python", STOPPED_BLOCK)]
    cut = steps_from_reply(Reply(looping, (), None, "length"), REGISTRY)
    assert [s.problem for s in cut] == [CUT_OFF_BLOCK]
    assert steps_from_reply(Reply(looping, (), None, "stop"), REGISTRY)[0].problem is None
