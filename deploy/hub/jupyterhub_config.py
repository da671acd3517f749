"""JupyterHub for a Triton-vs-CUDA Lab course on one machine: `jupyterhub -f THIS_FILE`, as
root, after `python deploy/hub/hub.py setup` (see hub.py).

Members of the tclab-students and tclab-instructors groups log in with their Unix password
(PAM); each one's single-user server runs as their own account (LocalProcessSpawner), with
this project's Python environment and nbgrader's assignment list. Every value below can be
changed by an environment variable, as the project's test of this recipe does.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hub  # noqa: E402 - beside this file

c = get_config()  # noqa: F821 - defined by traitlets when it loads this file
env = os.environ.get

c.JupyterHub.bind_url = env("TCLAB_HUB_URL", "http://:8000")
c.JupyterHub.hub_bind_url = env("TCLAB_HUB_API_URL", "http://127.0.0.1:8081")
state = env("TCLAB_HUB_STATE", "/srv/jupyterhub")  # the hub's database, cookie secret, pid
os.makedirs(state, mode=0o700, exist_ok=True)
c.JupyterHub.db_url = f"sqlite:///{state}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")

c.ConfigurableHTTPProxy.command = [str(hub.install_proxy())]
c.ConfigurableHTTPProxy.api_url = env("TCLAB_PROXY_API_URL", "http://127.0.0.1:8001")
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "jupyterhub-proxy.pid")

c.Authenticator.allowed_groups = {env("TCLAB_STUDENTS", hub.STUDENTS),
                                  env("TCLAB_INSTRUCTORS", hub.INSTRUCTORS)}
c.Authenticator.admin_groups = {env("TCLAB_INSTRUCTORS", hub.INSTRUCTORS)}

# The servers: this Python's own jupyterhub-singleuser, in each account's home.
c.Spawner.cmd = [os.path.join(os.path.dirname(sys.executable), "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# Every server reads the students' nbgrader config (the exchange, its private submissions)
# from deploy/hub/student/; TCLAB_EXCHANGE tells it and the course where the exchange is.
c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": str(hub.STUDENT_CONFIG),
    "TCLAB_EXCHANGE": str(hub.EXCHANGE),
}

# A service that may make accounts' hub users, their tokens and servers (scripts, tests):
# its token comes from the environment, and without one there is no such service.
if env("TCLAB_HUB_ADMIN_TOKEN"):
    c.JupyterHub.services = [{"name": "tclab-admin", "api_token": env("TCLAB_HUB_ADMIN_TOKEN")}]
    c.JupyterHub.load_roles = [{
        "name": "tclab-admin",
        "scopes": ["admin:users", "admin:servers", "tokens", "list:users"],
        "services": ["tclab-admin"],
    }]
