"""After a file or folder was not found: the part of its path that is in the working folder,
or that the path is outside it (a small model's made-up /home/user/downloads).

Runs inside the user's python3 (compatible with Python 3.8).
"""

from .state import clipped


def inside(path, folder):
    """Whether a path is the folder or in it."""
    import os
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def path_note(exc):
    """The note for a failed block, or None: for a path that does not exist, the end of it
    that the working folder has, or that it is outside the working folder."""
    import errno
    import os
    path = getattr(exc, "filename", None)
    if not isinstance(exc, OSError) or not isinstance(path, str) or not path:
        return None
    try:
        here = os.getcwd()
        if os.path.exists(path):
            return None
        parts = [part for part in path.replace(os.sep, "/").split("/") if part not in ("", ".")]
        for start in range(len(parts)):
            tail = os.path.join(*parts[start:])
            if (".." not in parts[start:] and os.path.exists(tail)
                    and os.path.abspath(tail) != os.path.abspath(path)):
                return clipped("%r does not exist; %s is in the working folder (%s): use the "
                               "relative path %r" % (path, tail, here, tail))
        refused = isinstance(exc, (FileNotFoundError, PermissionError)) or exc.errno == errno.EROFS
        if refused and os.path.isabs(path) and not inside(path, here):
            return clipped("%r is outside the working folder (%s), where the task's files are"
                           % (path, here))
    except Exception:  # a broken cwd or path; the note is only a help
        return None
    return None
