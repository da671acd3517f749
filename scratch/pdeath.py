import threading, time
from grader import runner
s = runner.Session()
box = {}
t = threading.Thread(target=lambda: box.setdefault("srv", s.server("cpu", "triton")))
t.start(); t.join()
srv = box["srv"]
for i in range(20):
    time.sleep(0.05)
    if srv.proc.poll() is not None:
        print("server died after its creating thread ended:", srv.proc.returncode, "at", i*0.05); break
else:
    print("server alive")
s.close()
import os
print("unsandboxed:", srv.unsandboxed)
