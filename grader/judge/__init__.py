"""The judge: one module per check kind (correctness, perf, memcheck), each with the half that
runs where the student's code runs and a pure `decide()`, all returning one `Verdict` type."""
