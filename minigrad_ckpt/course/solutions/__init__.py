"""Reference solutions of the course steps (same file names as the stubs): the test suite grades them
like a learner's file, so every check is known to be passable.  Read as files, never imported by the package
(step 2 imports step 1's finished Value).  The example at the end of each stub runs on them in the tests."""
