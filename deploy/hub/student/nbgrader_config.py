"""nbgrader config of every single-user server on the course's JupyterHub (deploy/hub): the
exchange, and submissions that only the instructors' group can read."""

import os

c = get_config()  # noqa: F821 - defined by traitlets when it loads this file

c.Exchange.root = os.environ.get("TCLAB_EXCHANGE", "/srv/nbgrader/exchange")
c.ExchangeFactory.submit = "grader.course.exchange.PrivateSubmit"
c.CourseDirectory.course_id = "tclab"
