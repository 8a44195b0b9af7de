"""Checks on a reply with nothing to run, which would be the final answer: code the model
wrote in a fence that does not run, an answer that only acknowledges the output, an answer
given before any code ran about files the model has only seen a preview of, numbers an answer
states that nothing of the task showed, and a value given as NaN."""

from __future__ import annotations

import re
from pathlib import Path

from interp.core.checks.base import Request, TaskView, listed
from interp.core.files.mentions import mentioned_folders
from interp.core.replies.report import ANSWER_CHECK, FIX_REQUEST
from interp.core.replies.steps import HOW_TO_CALL, HOW_TO_FENCE, unrun_code_tag

# A reply that acknowledges the output without saying anything ("ok.", "Done!").
_ACKNOWLEDGED = re.compile(r"\W*(?:ok(?:ay)?|done|yes|sure|great|all done|got it|finished|"
                           r"the output above answers the task)\W*", re.IGNORECASE)
# A sentence that asks something: a question mark, or an English interrogative or request.
QUESTION = re.compile(r"\?|\b(?:tell me|how many|how much|which|what|report|list)\b",
                      re.IGNORECASE)
# A reply that copies interp's report of a block ("[Block 2, python]\nOutput:").
_REPORT_ECHO = re.compile(r"\[Block \d+, [\w-]+\]\s*\n\s*(?:Output:|No output\.|Not run)")
_REPORT_ASKS = (FIX_REQUEST, ANSWER_CHECK)  # what a report asks after its blocks, copied
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)  # "1. Acme": a list's numbering
# Mathematical notation: a power (x^3, 2**20), arithmetic between a number or a variable and a
# number, or a matrix written as nested lists ([[6, -2], [-2, 9]]).
_FORMULA = re.compile(r"[a-z0-9)]\s*(?:\^|\*\*)\s*[-a-z0-9(]"
                      r"|\b(?:\d+(?:\.\d+)?|[a-z])\s*[-+*/]\s*\d|\[\s*\[\s*-?\d", re.IGNORECASE)
_WORD = re.compile(r"[a-z][\w.+-]*[\w+]", re.IGNORECASE)
# How people name a runnable language besides its runner's name.
_ALIASES = {"python3": "python", "py": "python", "bash": "shell", "sh": "shell",
            "zsh": "shell", "node": "javascript", "nodejs": "javascript",
            "node.js": "javascript", "js": "javascript"}
# Other programming languages: a task that names one of them beside a runnable one compares
# languages rather than asking to run code.
_OTHER_LANGUAGES = frozenset("go golang rust java kotlin scala swift c++ c# csharp ruby php perl "
                             "haskell elixir erlang lua julia dart typescript matlab fortran "
                             "cobol zig nim ocaml clojure".split())
# NaN given as a value: in a slot or brackets, after "=" or ":", or after "is"/"was"/"of" (not
# "NaN values", which counts them).
_NAN_VALUE = re.compile(r"(?:^|[\[(=:]|\b(?:is|was|are|were|of|be)\b)\s*[-+]?nan\b"
                        r"(?!\s*(?:values?|entries|entry|rows?|cells?)\b)", re.IGNORECASE)
_NAN = re.compile(r"(?<![\w.])nan(?![\w])", re.IGNORECASE)
SMALL = 10  # whole numbers below this are counts and list positions: never asked about
NAMED = 3  # numbers named in a request


def untagged_code(view: TaskView) -> Request | None:
    """Code in a fence without a language tag (or a terminal transcript without a `$ `
    prompt) runs nothing: the model is told how to make it run. A fact of the reply."""
    if view.tools and not view.fenced:
        return None
    tag = unrun_code_tag(view.reply.text)
    if tag is None:
        return None
    how = HOW_TO_CALL if view.tools else HOW_TO_FENCE
    what = (f"```{tag} block in your reply has no `$ ` prompt, so it was shown as output and "
            f"not run" if tag else "code block in your reply has no language tag, so it was "
            "not run")
    notice = (f"The reply's ```{tag} block has no $ prompt, so it was shown as output, not run; "
              "asking the model to tag it." if tag else "The reply's code block has no "
              "language tag, so it was not run; asking the model to tag it.")
    return Request(f"The {what}: {how} If it was not meant to run, say so.", notice,
                   retracts=False)


def acknowledged(view: TaskView) -> Request | None:
    """A reply that only repeats the task word for word, or, after code ran, one that only
    acknowledges ("ok.") a task that asks something, or that copies interp's report of a
    block or its question after one, is no answer: the model is asked for it."""
    said = view.reply.text.strip()
    words = _words(said)
    if words and words == _words(view.task):
        return Request("Your last reply only repeated the task instead of doing it. Do it now: "
                       "run code that does it, or, if it is done, reply with the answer.",
                       "The model replied with the task itself; asking it to do it.",
                       sampling="retry")
    if not view.ran:
        return None
    if _REPORT_ECHO.match(said) or said in _REPORT_ASKS:
        return Request("Your last reply copied the report of a block instead of replying. If "
                       "the task is done, reply to the user with the answer (the values you "
                       "found) and no code; if it is not, run code that does what is still "
                       "missing.", "The model replied with a copy of a block's report; asking "
                       "it to go on.", sampling="retry")
    if _ACKNOWLEDGED.fullmatch(said) and QUESTION.search(view.task):
        return Request("That does not answer the task. Reply to the user with the answer "
                       "itself: the values or names the output shows, in the form the task "
                       "asks for (else in words), and no code.",
                       f"The model replied {said[:80]!r} to a question; asking it for the "
                       "answer itself.")
    return None


def _words(text: str) -> list[str]:
    """The words of `text`, lower-cased: two texts that differ only in case, spacing or
    punctuation give the same list."""
    return re.findall(r"\w+", text.lower())


def run_first(view: TaskView) -> Request | None:
    """An answer given before any code ran, to a task about files or folders of the working
    folder that the model has seen at most a preview of, is a guess: it is asked to run
    code that finds the answer first. Not once this task proposed a block that the person or
    a rule refused: the model did try, and asking again would press against that decision."""
    if view.records:
        return None
    if view.previewed:
        why = f"Only a preview of {listed(view.previewed)} was shown to you"
    elif folders := mentioned_folders(view.task, view.root):
        why = (f"The task is about what is in {listed(folders)}"
               f"{'/' if len(folders) == 1 else ''} here")
    else:
        return None
    return Request(f"{why}, and no code has run yet. {_how(view, 'python')} that does it and "
                   "prints the result; it will run, and you will see its output. Then answer "
                   "from the output.",
                   f"{why}, and the model answered without running code; asking it to run "
                   "the code.")


def named_file_missing(view: TaskView) -> Request | None:
    """Files the task names that were not in the working folder when it began, and still are
    not when the model answers after running code that never tried to read them: a task that
    names a file it wants made is not done before the file exists. A file a block failed to
    find is an input that is missing, not one to make; the request leaves room for a task
    that only mentions a file."""
    if not view.ran:
        return None
    failed = "\n".join(r.output_text() for r in view.ran if r.status == "error")
    missing = [name for name in view.absent
               if not (Path(view.root) / name).exists() and name not in failed]
    if not missing:
        return None
    one = len(missing) == 1
    names = listed(missing)
    how = ("call the `execute` tool with code that saves" if view.tools
           else "reply with a code block that saves")
    return Request(f"The task names {names}, which {'does' if one else 'do'} not exist yet. If "
                   f"the task asks for {'it' if one else 'them'}, {how} "
                   f"{'it' if one else 'them'}, then answer from the output; if it does not, "
                   "reply with your answer again.",
                   f"The task names {names}, which {'does' if one else 'do'} not exist yet; "
                   f"asking the model whether to write {'it' if one else 'them'}.")


def unseen_numbers(view: TaskView) -> Request | None:
    """An answer that states numbers nothing of this task showed (not the task, the files it
    was shown, nor any output) has made them up or worked them out in its head, which small
    models get wrong: it is asked to compute and print them with code, then answer from the
    output. Only for a task that has code to run: one where code ran already, or whose text
    holds a formula (opinions, comparisons, explanations and knowledge questions, whose
    answers may well hold years and versions, are left alone)."""
    if not (view.ran or _FORMULA.search(view.task)):
        return None
    language = _language_named(view.task, view.languages)
    found = unseen(view.reply.text, [view.task, *view.shown])
    if not found:
        return None
    how = _how(view, language or "python")
    if not view.ran:  # the numbers are not quoted: a small model copies them into its code
        return Request(f"Your answer was worked out without running code, and no code has run "
                       f"yet. {how} that computes it and prints the result; it will run, and "
                       "you will see its output. Then answer from the output.",
                       "The answer states numbers no code computed; asking the model to "
                       "compute them with code.")
    stated = listed(found[:NAMED])
    return Request(f"Your answer states {stated}, which no output of this task shows. {how} "
                   "that computes and prints the values the task asks for (the session keeps "
                   "its variables); then answer from its output.",
                   f"The answer states {stated}, which no output showed; asking the model to "
                   "compute it with code.")


def nan_answer(view: TaskView) -> Request | None:
    """An answer that gives NaN as a value, after an output of this task printed NaN, reports
    a calculation that selected no rows or met missing values rather than its result: the
    model is asked to print which, and to fix the selection or compute the value again on the
    rows where its inputs are present."""
    if not view.ran or not _NAN_VALUE.search(view.reply.text):
        return None
    printed = [record for record in view.ran if _NAN.search(record.output_text())]
    if not printed:
        return None
    how = _how(view, printed[-1].language)
    return Request("Your answer gives NaN (not a number) as a value, so it is not the result: "
                   "the calculation behind it selected no rows (a filter that matched nothing) "
                   f"or met missing values in its inputs. {how} that prints how many rows the "
                   "calculation uses and how many values of each input are missing; with no "
                   "rows, fix the selection; else keep only the rows where none of those "
                   "inputs is missing (a value missing elsewhere in a row is no reason to drop "
                   "it) and compute the value again on them. Print it, then answer from its "
                   "output.",
                   "The answer gives NaN as a value; asking the model for the rows and missing "
                   "values behind it, and to compute it again.")


def unseen(answer: str, seen: list[str]) -> tuple[str, ...]:
    """The numbers of `answer` (as written) that no number of the `seen` texts rounds or cuts
    to (also as a percentage: within one unit of the last digit written), leaving out whole
    numbers below SMALL and list numbering."""
    shown = [value for text in seen for value, _, _ in _numbers(text)]
    out: list[str] = []
    for value, decimals, written in _numbers(_LIST_ITEM.sub(" ", answer)):
        if decimals == 0 and abs(value) < SMALL or written in out:
            continue
        slack = 10.0 ** -decimals + 1e-9 * max(1.0, abs(value))  # rounded or cut off
        if not any(abs(s - value) <= slack or abs(s * 100 - value) <= slack for s in shown):
            out.append(written)
    return tuple(out)


def _numbers(text: str) -> list[tuple[float, int, str]]:
    """(value, decimals, as written) of each number in `text`."""
    found = []
    for match in _NUMBER.finditer(text):
        written = match.group(0)
        plain = written.replace(",", "")
        try:
            value = float(plain)
        except ValueError:
            continue
        mantissa = plain.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        found.append((value, decimals, written))
    return found


def _language_named(task: str, languages: tuple[str, ...]) -> str | None:
    """The one language the task names when it runs here (None for none, or for several: a
    comparison, not an instruction)."""
    known = {name.lower() for name in languages}
    named = {_ALIASES.get(word.lower(), word.lower()) for word in _WORD.findall(task)}
    found = named & (known | _OTHER_LANGUAGES)
    return found.pop() if len(found) == 1 and found <= known else None


def _how(view: TaskView, language: str) -> str:
    return (f'Call the `execute` tool (language "{language}") with {language} code' if view.tools
            else f"Reply with a ```{language} block of {language} code")
