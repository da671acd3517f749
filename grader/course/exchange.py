"""nbgrader's exchange with submissions only the instructors can read.

nbgrader's own `ExchangeSubmit` leaves every submission readable by every account on the
machine (folder 0777, files 0644): the inbound folder cannot be listed, but a student who
knows or guesses a classmate's folder name reads their notebook. `PrivateSubmit` closes the
submission's folder to all but its owner and its group. The inbound folder is setgid to the
instructors' group (deploy/hub makes it so), so the folder nbgrader makes in it is that
group's, and the instructors enter it through the group.

The files inside stay 0644: nobody else can reach them, and the instructors must read them
as "others". nbgrader copies the student's folder's mode onto the submission (dropping the
setgid bit: a student is no member of the group), and the files it writes after that copy
(timestamp.txt, submission_secret.txt) get the student's own group.

Selected in an nbgrader config with
`c.ExchangeFactory.submit = "grader.course.exchange.PrivateSubmit"`; it must be the config
of the account that submits (a student's), which deploy/hub gives every single-user server.
"""

from __future__ import annotations

import os

from nbgrader.exchange.default.submit import ExchangeSubmit

# The student and the instructors' group; nobody else. The group may write the folder, as
# nbgrader's 0777 lets it, so that an instructor can delete a submission.
SUBMISSION_DIR_MODE = 0o770
SUBMISSION_FILE_MODE = 0o644  # behind the folder


class PrivateSubmit(ExchangeSubmit):
    def copy_files(self):
        super().copy_files()
        # The folder's name has 72 random bits, and nbgrader left it open for the moment
        # between its copy and this line.
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        self.set_perms(dest, fileperms=SUBMISSION_FILE_MODE, dirperms=SUBMISSION_DIR_MODE)
