"""Reference solutions of the course steps (same file names as the stubs): the test suite grades them
like a learner's file, so every check is known to be passable.  Read as files, never imported by the package."""
