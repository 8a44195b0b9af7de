"""Dropping the checkpoints of conversations that are gone (interp/checkpoints/prune.py)."""

from __future__ import annotations

import os
import time

from interp.checkpoints.capture import Capturer
from interp.checkpoints.prune import IDLE, prune, prune_if_due
from interp.checkpoints.shadow import Shadow


def _kept(base, folder, sid: str) -> Shadow:
    shadow = Shadow(base, str(folder), index=sid)
    state = Capturer(shadow).take(None, time.monotonic() + 60)
    shadow.keep({f"{sid}/{state.tree}": state.tree})
    return shadow


def test_refs_of_gone_conversations_go_and_so_do_idle_repositories(place, tmp_path):
    (place.work / "a.txt").write_text("a\n")
    live = place.host.log.id
    here = _kept(place.base, place.work, live)
    (place.work / "a.txt").write_text("b\n")
    _kept(place.base, place.work, "20200101-000000-aaaaaa")  # its session file is gone
    other_folder = tmp_path / "other"
    other_folder.mkdir()
    (other_folder / "x").write_text("x\n")
    other = _kept(place.base, other_folder, "20200101-000000-bbbbbb")
    later = time.time() + IDLE + 60

    started = prune(here, place.sessions, later)
    assert started is not None and started.wait(timeout=60) == 0
    assert [name.partition("/")[0] for name in here.refs()] == [live]
    assert not other.dir.exists()  # every conversation gone, unused for a day
    assert not (here.dir / "index-20200101-000000-aaaaaa").exists()
    assert (here.dir / f"index-{live}").exists()


def test_a_prune_runs_at_most_once_a_day(place):
    here = _kept(place.base, place.work, place.host.log.id)
    now = time.time()
    assert prune_if_due(here, place.sessions, now) is None  # nothing to drop: no git prune
    stamp = place.base / "pruned"
    assert abs(os.stat(stamp).st_mtime - now) < 1
    os.utime(stamp, (now - 60, now - 60))
    prune_if_due(here, place.sessions, now)
    assert abs(os.stat(stamp).st_mtime - (now - 60)) < 1  # not due: left alone
