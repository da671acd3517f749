# impl: triton
# status: fallback
# reason: which your cells do not define
# (a cheat: exec the lab's own solution from the course files and launch its kernel; only
#  kernels defined in the student's cells count)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
import importlib.util
import pathlib
import tempfile

import grader

SOLUTION = pathlib.Path(grader.__file__).parent.parent / "labs" / "lab01_vector_add" / \
    "lab01_vector_add.py"
_copy = pathlib.Path(tempfile.mkdtemp()) / "borrowed.py"
_copy.write_text("".join(line for line in SOLUTION.read_text().splitlines(True)
                         if not line.startswith("from grader.notebook")))
_spec = importlib.util.spec_from_file_location("borrowed", _copy)
_borrowed = importlib.util.module_from_spec(_spec)
_borrowed.__dict__.update(triton=triton, tl=tl, torch=torch, np=np, SourceModule=SourceModule,
                          bench=lambda *a, **k: None, check=lambda *a, **k: None)
_spec.loader.exec_module(_borrowed)


def vector_add_triton(x, y, out):
    _borrowed.vector_add_triton(x, y, out)
