"""quizbot's benchmarks (issue #6): `python -m bench` (full) or `python -m bench --quick`.

Every figure is measured next to a baseline in the same run, and judged by its ratio as well
as its value: the machine is shared and noisy, so an absolute number alone says little.
"""
