"""Where work is organised above the contests: the folder guard of jobs sent to workers, and
the generic King-of-the-Hill driver (:mod:`verify.pipeline.tournament`)."""
