# Mutation testing of the lessons' checks (py/looplab/_course/mutants.py): each exercise's solution is
# changed in one small way at a time and the lesson's checks must notice. A lesson's floor (the share
# of its non-equivalent mutants killed) and its mutants marked equivalent, each with a reason, are in
# lessons/mutants/.
#   make mutants        every mutant of every lesson (about half an hour on 2 cores); prints the table and
#                       each survivor, raises a floor to the score measured (floors only rise), writes
#                       build/mutants.json, and fails when a lesson is below its floor
#   make test-mutants   a part of make test: a fixed sample of each exercise's mutants, each lesson's report
#                       kept in .cache/mutants under a key of everything it depends on (the lesson, the
#                       lessons it takes parts from, its marks, the package), so an unchanged lesson is not
#                       run again; fails when a lesson's sample is below its floor

.PHONY: mutants test-mutants

mutants: venv
	@mkdir -p build
	PYTHONPATH=py $(PY) -m looplab._course.mutants --survivors --raise-floors --json build/mutants.json

test-mutants: venv
	PYTHONPATH=py $(PY) -m looplab._course.mutants --short --cache .cache/mutants
