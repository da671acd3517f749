"""The nbgrader course: build it from labs/, check a release for leaks, autograde honestly.

    build.py          labs/ → an nbgrader course directory (config, source notebooks, secrets)
    preprocessors.py  nbgrader preprocessors: C-aware stripping, sanitising, a safer Execute
    regrade.py        the out-of-kernel regrade: grade cells scored from the runner's verdicts
    leakcheck.py      a release must hold stubs and public tests only
    autograde.py      every submission of one lab, one worker per GPU, a summary table
    slurm.py          the same as one Slurm job array, a task per submission
    cli.py            `tclab course build|leakcheck|autograde`
"""

from grader.base import startup

startup.skip_iri_grammar()  # these modules import nbformat: before they do (see base.startup)
