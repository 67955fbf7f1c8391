"""The static HTML site of a check, a rank or a tournament, and SVG pictures (docs/site.md).

- :mod:`.capture`: a bounded copy of each output, taken beside its judging;
- :mod:`.desert`: the desert replay (bounded) read back from that copy with the exact rules;
- :mod:`.pages`: the index, the entry pages and the replay pages; :mod:`.render`: templates;
- :mod:`.svg`: the pictures, drawn from the engines' state.
"""
from verify.site.capture import OutputCapture, capturing
from verify.site.pages import CaseRun, EntryPage, GolfBoard, write_check_site, write_koth_site

__all__ = ["CaseRun", "EntryPage", "GolfBoard", "OutputCapture", "capturing", "write_check_site",
           "write_koth_site"]
