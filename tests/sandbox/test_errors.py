"""What a student reads when a call fails: a CPU-only hint for CUDA, where a stopped call was, a changed argument, which
built-in exception it raised."""

from autograder.sandbox import errors


def test_cuda_errors_say_grading_is_cpu_only():
    error = errors.raised("m.f(X=float64[2])", {"type": "AssertionError", "message": "Torch not compiled with CUDA enabled"})
    assert "graded on a CPU, with no GPU: remove .cuda()" in str(error)
    assert "GPU" not in str(errors.raised("m.f()", {"type": "ValueError", "message": "bad"}))


def test_a_stopped_call_names_the_student_line_it_was_at_and_the_flood():
    frames = [("/usr/lib/python3/torch/x.py", 5, "inner"), ("/box/submission-3/qkv.py", 12, "softmax"),
              ("/box/submission-3/qkv.py", 30, "attention"), ("/box/main.py", 1, "<module>")]
    text = str(errors.timed_out("qkv.softmax(x=float64[3])", 5, frames, "submission-3", printed=3 << 20))
    assert "It was at qkv.py, line 12, in softmax (in a library call made there)." in text
    assert "Meanwhile it printed 3.0 MB of output" in text
    assert "It was at" not in str(errors.timed_out("f()", 5, frames, "submission-4"))  # not this submission's files
    assert "printed" not in str(errors.timed_out("f()", 5, [], "submission-3", printed=100))


def test_changed_arguments_are_a_failure_of_their_own_kind():
    error = errors.changed_arguments("m.f(X=float64[2])", ["X"])
    assert error.kind == errors.CHANGED_ARGUMENT and "your function changed its argument X in place" in str(error)
    assert errors.changed_arguments("m.f()", []) is None and errors.changed_arguments("m.f()", "X") is None


def test_a_worker_whose_python_lacks_a_package_names_it_and_the_fix():
    output = ('Traceback (most recent call last):\n  File "/grader/main.py", line 218, in import_libraries\n'
              "    import torch\nModuleNotFoundError: No module named 'torch'\n")
    said = errors.worker_not_started("EOFError", output, "/usr/bin/python3")
    assert "could not import torch" in said and "/usr/bin/python3" in said and "make autograder" in said
    assert "Traceback" not in said  # the package and the fix, not the worker's traceback
    other = errors.worker_not_started("TimeoutError", "Segmentation fault\n", "/usr/bin/python3")
    assert other == "the grading worker did not start (TimeoutError); output:\nSegmentation fault\n"


def test_an_exception_is_judged_by_the_built_in_classes_it_is_an_instance_of_not_by_its_name():
    subclass = errors.raised("m.f(d=3)", {"type": "OddDimension", "message": "odd",
                                          "builtins": ["ValueError", "Exception", "BaseException"]})
    assert subclass.raised_a("ValueError") and subclass.raised_a("Exception") and not subclass.raised_a("TypeError")
    assert str(subclass) == "m.f(d=3) raised OddDimension: odd"
    lookalike = errors.raised("m.f(d=3)", {"type": "ValueError", "message": "odd", "builtins": ["Exception", "BaseException"]})
    assert not lookalike.raised_a("ValueError") and lookalike.raised_a("Exception")
    assert str(lookalike) == "m.f(d=3) raised ValueError (a class of its own, not Python's ValueError): odd"
    assert not errors.raised("m.f()", {"type": "ValueError", "message": "", "builtins": "ValueError"}).raised_a("ValueError")
    assert not errors.changed_arguments("m.f()", ["X"]).raised_a("Exception")  # raised nothing
