"""Script files and the blocks that stand for them: a fixed copy of report.py run as a block
while report.py itself stays as it was."""

from __future__ import annotations

from session_kit import finished, of, py, run

from interp.core.savedscripts import copied_script, heredoc, run_line, saved_copy

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


SUMMARY = ('import csv\nfrom collections import defaultdict\n\ntotals = defaultdict(int)\n'
           'with open("stock.csv") as handle:\n    for row in csv.DictReader(handle):\n'
           '        totals[row["warehouse"]] += int(row["qty"])\n'
           'print("grand total:", sum(totals.values()))\n')


def test_an_answer_while_the_script_to_fix_is_unchanged_is_no_answer_yet(server, make_session):
    """Qwen2.5-Coder-1.5B on the task benchmark (2026-11-27) ran its fixed copy of summary.py
    as a block and answered; summary.py itself still failed."""
    (make_session.work / "summary.py").write_text(SUMMARY)
    (make_session.work / "stock.csv").write_text("item,warehouse,quantity\nbolt,A,3\nnut,B,4\n")
    fixed = SUMMARY.replace('row["qty"]', 'row["quantity"]')
    server.script([py(fixed), "The grand total is 7.",
                   f"```bash\ncat > summary.py <<'EOF'\n{fixed}EOF\npython3 summary.py\n```",
                   "The grand total is 7.", "unused"])
    events = run(make_session(server, tools="off"),
                 "summary.py stops with a KeyError. Fix it and run it, then tell me the total.")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert server.requests[2]["messages"][-1]["content"] == (
        "The task asks to fix summary.py, which is still unchanged: the fixed code ran only in "
        "this session. Reply with a ```bash block with `cat > summary.py <<'EOF'`, the code, "
        "then `EOF`, and `python3 summary.py` on the line after it to run it; then answer from "
        "the output.")
    assert "grand total: 7" in server.requests[3]["messages"][-1]["content"]
    assert len(server.requests) == 4 and (make_session.work / "summary.py").read_text() == fixed
    assert [m["final"] for m in of(events, "message")] == [False, False, False, True]


def test_a_task_that_only_runs_a_script_does_not_ask_to_change_it(server, make_session):
    (make_session.work / "summary.py").write_text(SUMMARY)
    server.script([py("print('grand total: 7')"), "The grand total is 7."])
    events = run(make_session(server, tools="off"), "Run summary.py and tell me the total.")
    assert finished(events) == {"exit_code": 0, "reason": "done"} and len(server.requests) == 2


def test_asked_to_save_its_fix_a_block_that_copies_the_script_saves_it_and_runs_it(
        server, make_session):
    """Qwen2.5-Coder-1.5B on fixing-report-crash (interp eval tasks, 2026-11-28), asked to save
    its fix with a here-document, sent the ```python block it had run before."""
    (make_session.work / "summary.py").write_text(SUMMARY)
    (make_session.work / "stock.csv").write_text("item,warehouse,quantity\nbolt,A,3\nnut,B,4\n")
    fixed = SUMMARY.replace('row["qty"]', 'row["quantity"]')
    server.script([py(fixed), "The grand total is 7.", py(fixed), "The grand total is 7."])
    events = run(make_session(server, tools="off"),
                 "summary.py stops with a KeyError. Fix it and run it, then tell me the total.")
    assert finished(events) == {"exit_code": 0, "reason": "done"}
    assert (make_session.work / "summary.py").read_text() == fixed
    proposed = [e["language"] for e in of(events, "block.proposed")]
    assert proposed == ["python", "shell"]
    assert [n["text"] for n in of(events, "notice") if "copy of" in n["text"]] == [
        "The reply's python block is a copy of summary.py, which the model was asked to save: "
        "it runs as a shell block that saves it to summary.py and runs it."]
    assert "grand total: 7" in server.requests[3]["messages"][-1]["content"]


def test_a_saved_copy_is_a_here_document_that_does_not_end_inside_the_code():
    scripts = {"report.py": REPORT.encode()}
    name, code = saved_copy("python", FIXED + "EOF\n", scripts)
    assert name == "report.py"
    assert code == f"cat > report.py <<'INTERP_EOF'\n{FIXED}EOF\nINTERP_EOF\npython3 report.py"
    assert saved_copy("javascript", FIXED, scripts) is None  # not the script's language
    assert saved_copy("python", "print(1)", scripts) is None
