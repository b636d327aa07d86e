-- The held queue, oldest hold first.
SELECT state FROM entries WHERE status = 'held' ORDER BY seq
