"""The static HTML site of a check, a rank or a tournament (docs/site.md). Generic: what a
contest shows beyond its verdicts comes from its presenter (verify.contests.contract.Presenter).

- :mod:`.capture`: a bounded copy of each output, taken beside its judging;
- :mod:`.ahead`: the work of the replay pages done in a helper process while the runs go on;
- :mod:`.pages`: the index, the entry pages and the replay pages; :mod:`.render`: templates
  (the site's, and the contests' own) and the contests' pictures.
"""
from verify.site.capture import OutputCapture, capturing
from verify.site.pages import CaseRun, EntryPage, GolfBoard, write_check_site, write_koth_site
from verify.site.render import draw

__all__ = ["CaseRun", "EntryPage", "GolfBoard", "OutputCapture", "capturing", "draw", "write_check_site",
           "write_koth_site"]
