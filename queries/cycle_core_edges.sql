SELECT src, dst FROM cycle_core ORDER BY src, dst
