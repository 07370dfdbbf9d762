"""gunicorn's settings for fogx, read by every `gunicorn wsgi:app` started in this folder.

Each worker marks itself alive by touching a file after every request. On a disk-backed
folder (gunicorn's default, the system's temporary folder) that is an inode update in the
file system's journal, which PostgreSQL's commits on the same disk keep busy, and a touch can
wait for the journal; in memory it cannot. With the file in `/dev/shm`, eight clients filed
4 to 6% more manifests a second on this machine (bench/README.md).
"""
import os

if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"
