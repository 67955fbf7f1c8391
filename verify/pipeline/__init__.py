"""Where work is organised above the contests: a check as plan (:mod:`.plan`), execution over
the executor (:mod:`.execute`) and observers (:mod:`.observe`), into results (:mod:`.outcome`);
the folder guard of jobs sent to workers (:mod:`.guard`); and the generic King-of-the-Hill
driver (:mod:`.tournament`)."""
