"""The notebook kernel nbgrader starts to execute a submission, inside the sandbox.

nbgrader runs the student's cells in a Jupyter kernel of its own, as the instructor, in the
course directory: a solution cell there could read the gradebook, the secret grading seed,
the course's source notebooks and every other student's submission. Here the kernel is
started through `grader.execution.sandbox` like every other process that runs student code: the
allowlisted file system, no network, its own pid namespace, and as its folder an empty scratch
directory (not the course directory). It speaks to nbgrader over Unix sockets in that folder
(ZeroMQ's ipc transport: the sandbox has no network to carry TCP).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from grader.execution import sandbox


class AsyncSandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs in the sandbox: a scratch folder holds the
    connection file and the sockets, and the kernel's command is wrapped by bwrap."""

    device = "cpu"  # set on a subclass by `manager_for`

    def _scratch(self) -> Path:
        if getattr(self, "_tclab_scratch", None) is None:
            self._tclab_scratch = Path(tempfile.mkdtemp(prefix="tclab-kernel-"))
            self.transport = "ipc"
            self.ip = str(self._tclab_scratch / "ipc")
            self.connection_file = str(self._tclab_scratch / "kernel.json")
        return self._tclab_scratch

    async def _async_pre_start_kernel(self, **kw):
        self._scratch()
        self._tclab_env = dict(kw.get("env") or {})
        return await super()._async_pre_start_kernel(**kw)

    pre_start_kernel = _async_pre_start_kernel

    def format_kernel_cmd(self, extra_arguments=None):
        scratch = self._scratch()
        cmd = super().format_kernel_cmd(extra_arguments)
        boxed = sandbox.command(cmd, scratch, self.device, getattr(self, "_tclab_env", {}))
        if boxed is None:
            self.log.warning("the notebook kernel runs unsandboxed: %s", sandbox.available())
            return cmd
        return boxed

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart)
        if not restart and getattr(self, "_tclab_scratch", None) is not None:
            shutil.rmtree(self._tclab_scratch, ignore_errors=True)
            self._tclab_scratch = None

    cleanup_resources = _async_cleanup_resources


def manager_for(device: str) -> type:
    """The kernel manager class for a kernel on `device` ("cpu" or "gpu")."""
    return type(f"AsyncSandboxedKernelManager_{device}", (AsyncSandboxedKernelManager,),
                {"device": device})
