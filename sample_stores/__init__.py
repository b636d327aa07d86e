"""The sample stores, shipped inside the package as `inspector.samples_data` (package data;
see inspector/samples.py). This directory is their source: build.py rebuilds them."""
