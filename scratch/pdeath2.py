import threading, time, os, subprocess
from grader import runner
s = runner.Session()
box = {}
t = threading.Thread(target=lambda: box.setdefault("srv", s.server("cpu", "triton")))
t.start(); t.join()
srv = box["srv"]
time.sleep(3)
print("bwrap poll", srv.proc.poll())
print(subprocess.run(["ps", "--ppid", str(srv.proc.pid), "-o", "pid,stat,cmd"], capture_output=True, text=True).stdout)
print(subprocess.run(["ps", "-eo", "pid,ppid,stat,cmd"], capture_output=True, text=True).stdout[-1500:])
s.close()
