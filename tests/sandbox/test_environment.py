"""What student code may import comes from the requirements the grading image installs, marked there."""

from autograder.sandbox import environment


def test_numpy_and_torch_are_the_packages_student_code_may_import():
    assert environment.student_libraries() == ("numpy", "torch")


def test_only_marked_lines_count():
    lines = ["# comment", f"numpy==2.4.6  {environment.MARK}", "PyYAML==6.0.3", f'torch>=2.2; sys_platform != "win32"  {environment.MARK}',
             f"Some-Package==1  {environment.MARK}"]
    assert environment.marked(lines) == ("numpy", "torch", "some_package")
