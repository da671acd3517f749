"""Fake student submissions for tests/test_course.py (see students.py)."""
