"""A Slurm cluster of one node, this machine, for the tests: Debian's `slurm-wlm` and `munge`.

    cluster = Cluster(tmp_path, fake_gpus=2)   # munged, slurmctld, slurmd as root, in tmp_path
    cluster.start()                  # SLURM_CONF points at it until stop(); the node is idle
    ...                              # sbatch, squeue, scancel talk to it
    cluster.stop()                   # every job cancelled, every daemon killed

Nothing outside the folder is touched: a munge key and socket of its own, its own ports,
spool and logs, so a machine that is also a real cluster's node keeps its own Slurm. The node
is this host (`hostname -s`) with the CPUs and memory `slurmd -C` finds, in one CPU-only
partition; no cgroups (`proctrack/linuxproc`, `task/none`), as in a container. Finished
jobs are recorded by `jobcomp/filetxt` (one line per job or array task), since a cluster
without slurmdbd has no `sacct`.

`fake_gpus=N` gives the node N GPUs that are not there: device nodes made as copies of
/dev/null, which is all Slurm's gres/gpu needs to hand them out and set each task's
`CUDA_VISIBLE_DEVICES`. Jobs that ask for no GPU (all the grading here) never see them.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel")
MISSING = "skipped: needs Slurm: apt-get install slurm-wlm munge"
START_TIMEOUT = 60.0  # seconds for the node to show idle; about 3 s on a 2-core machine


def why_not() -> str | None:
    """Why no cluster can be started here, in the words of a pytest skip; None if it can."""
    if any(shutil.which(b) is None for b in BINARIES):
        return MISSING
    if os.geteuid() != 0:
        return "skipped: needs root to start slurmd and munged (as on a CI machine)"
    return None


class ClusterError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _node_line() -> str:
    """`slurmd -C`'s own description of this host, less its uptime."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout
    line = next(s for s in out.splitlines() if s.startswith("NodeName="))
    return line + " NodeAddr=127.0.0.1 State=UNKNOWN"


class Cluster:
    def __init__(self, folder: Path, partition: str = "cpu", fake_gpus: int = 0):
        self.folder = Path(folder)
        self.partition = partition
        self.fake_gpus = fake_gpus
        self.conf = self.folder / "slurm.conf"
        self.jobcomp = self.folder / "jobcomp.txt"
        self.node = ""
        self._old_conf: str | None = None

    def _path(self, *parts: str) -> Path:
        return self.folder.joinpath(*parts)

    def _write(self) -> None:
        munge = self._path("munge")
        munge.mkdir(mode=0o700, parents=True)
        key = munge / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        key.chmod(0o400)
        for d in ("spool/ctld", "spool/d", "log"):
            self._path(d).mkdir(parents=True)
        node = _node_line()
        self.node = node.split()[0].removeprefix("NodeName=")
        gres = ""
        if self.fake_gpus:
            null = os.stat("/dev/null").st_rdev
            for i in range(self.fake_gpus):
                os.mknod(self._path(f"nvidia{i}"), 0o666 | stat.S_IFCHR, null)
            files = f"{self._path('nvidia')}[0-{self.fake_gpus - 1}]"
            # gres.conf is read from beside slurm.conf
            self._path("gres.conf").write_text(f"NodeName={self.node} Name=gpu File={files}\n")
            node += f" Gres=gpu:{self.fake_gpus}"
            gres = "GresTypes=gpu"
        self.conf.write_text(f"""\
ClusterName=tclabtest
{gres}
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={munge / "munge.socket"}
CredType=cred/munge
StateSaveLocation={self._path("spool/ctld")}
SlurmdSpoolDir={self._path("spool/d")}
SlurmctldPidFile={self._path("slurmctld.pid")}
SlurmdPidFile={self._path("slurmd.pid")}
SlurmctldLogFile={self._path("log/slurmctld.log")}
SlurmdLogFile={self._path("log/slurmd.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc={self.jobcomp}
{node}
PartitionName={self.partition} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
""")

    def start(self) -> Cluster:
        self._write()
        munge = self._path("munge")
        self._old_conf = os.environ.get("SLURM_CONF")
        os.environ["SLURM_CONF"] = str(self.conf)
        try:
            # --force: munged refuses a socket folder under /tmp that others could traverse.
            self._daemon(["munged", "--force", f"--key-file={munge / 'munge.key'}",
                          f"--socket={munge / 'munge.socket'}",
                          f"--pid-file={munge / 'munged.pid'}",
                          f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'seed'}"])
            self._daemon(["slurmctld", "-i"])  # -i: no saved state to recover
            self._daemon(["slurmd"])
            self._wait_idle()
        except BaseException:
            self.stop()
            raise
        return self

    def _daemon(self, cmd: list[str]) -> None:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            raise ClusterError(f"{cmd[0]} did not start (exit {proc.returncode}): "
                               f"{proc.stderr.strip()}\n{self.logs()}")

    def _wait_idle(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        state = ""
        while time.monotonic() < deadline:
            proc = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%T"],
                                  capture_output=True, text=True)
            state = proc.stdout.strip() or proc.stderr.strip()
            if state == "idle":
                return
            time.sleep(0.5)
        raise ClusterError(f"node {self.node} not idle after {START_TIMEOUT:g} s (sinfo: "
                           f"{state!r})\n{self.logs()}")

    def logs(self, lines: int = 15) -> str:
        parts = []
        for log in (self._path("munge/munged.log"), self._path("log/slurmctld.log"),
                    self._path("log/slurmd.log")):
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-lines:]
                parts.append(f"--- {log.name}\n" + "\n".join(tail))
        return "\n".join(parts)

    def finished(self) -> list[dict[str, str]]:
        """Every job and array task that ended, as jobcomp/filetxt recorded it."""
        if not self.jobcomp.exists():
            return []
        return [dict(f.split("=", 1) for f in line.split() if "=" in f)
                for line in self.jobcomp.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        """Cancel every job, then kill slurmd, slurmctld and munged (the ones we started)."""
        if self._path("slurmctld.pid").exists():
            subprocess.run(["scancel", "--user", "root"], capture_output=True,
                           timeout=30)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                proc = subprocess.run(["squeue", "-h"], capture_output=True, text=True)
                if proc.returncode != 0 or not proc.stdout.strip():
                    break
                time.sleep(0.5)
        for pid_file in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            self._kill(self._path(pid_file))
        if self._old_conf is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = self._old_conf

    @staticmethod
    def _kill(pid_file: Path) -> None:
        try:
            pid = int(pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
                time.sleep(0.1)
