"""Script files and the blocks that stand for them: a fixed copy of report.py run as a block
while report.py itself stays as it was."""

from __future__ import annotations

from session_kit import finished, py, run

from interp.core.savedscripts import copied_script, heredoc, run_line

REPORT = ('import csv\n\ntotal = 0.0\ncount = 0\nwith open("orders.csv") as handle:\n'
          '    for row in csv.DictReader(handle):\n        total += float(row["amount"])\n'
          '        count += 1\nprint(f"Average order value: {total / count:.2f}")\n')
# Qwen2.5-Coder-1.5B's fix on the task benchmark (2026-11-27): run as a block, never saved.
FIXED = ('import csv\n\ntotal = 0.0\ncount = 0\nwith open("orders.csv") as handle:\n'
         '    for row in csv.DictReader(handle):\n'
         '        if row["amount"].strip():  # Check if the amount is not empty\n'
         '            total += float(row["amount"])\n            count += 1\n'
         'print(f"Average order value: {total / count:.2f}")\n')
NOTE = ("Note: this code ran in the session, and report.py itself is unchanged. If the task is "
        "to change report.py, save the new code to it (a ```bash block with `cat > report.py "
        "<<'EOF'`, the code, then `EOF`) and run it with `python3 report.py`.")


def test_a_block_holding_most_of_a_named_script_that_did_not_change_is_noted(tmp_path):
    (tmp_path / "report.py").write_text(REPORT)
    assert copied_script(FIXED, ["report.py"], tmp_path, set()) == NOTE
    assert copied_script(FIXED, ["report.py"], tmp_path, {"report.py"}) is None  # it was saved
    assert copied_script("print(1)\nprint(2)\nprint(3)", ["report.py"], tmp_path, set()) is None
    (tmp_path / "orders.csv").write_text(REPORT)  # not a script, whatever it holds
    assert copied_script(FIXED, ["orders.csv", "gone.py"], tmp_path, set()) is None


def test_how_scripts_are_saved_and_run():
    assert heredoc("a b.sh") == "a ```bash block with `cat > a b.sh <<'EOF'`, the code, then `EOF`"
    assert run_line("a b.sh") == "bash 'a b.sh'" and run_line("x.JS") == "node x.JS"
    assert run_line("data.csv") == ""


def test_the_model_is_told_when_its_fix_ran_but_the_script_did_not_change(server,
                                                                           make_session):
    (make_session.work / "report.py").write_text(REPORT)
    (make_session.work / "orders.csv").write_text("order_id,amount\n1,2.5\n2,\n3,3.5\n")
    saved = f"cat > report.py <<'EOF'\n{FIXED}EOF\npython3 report.py"
    server.script([py(FIXED), f"```bash\n{saved}\n```", "The average is 3.00."])
    events = run(make_session(server, tools="off"), "report.py crashes on orders.csv. Fix it so "
                 "that it skips the rows without an amount, run it, and tell me the average.")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    first, second = (server.requests[i]["messages"][-1]["content"] for i in (1, 2))
    assert "Average order value: 3.00" in first and NOTE in first
    assert "Average order value: 3.00" in second and "Note: this code ran" not in second
    assert (make_session.work / "report.py").read_text() == FIXED
