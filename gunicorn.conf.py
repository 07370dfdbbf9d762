"""gunicorn's settings for fogx, read by every `gunicorn wsgi:app` started in this folder.

Each worker marks itself alive by touching a file after every request; the file lives in
memory, so a touch never waits on the journal of the disk the database commits to.
"""
import os

if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"

