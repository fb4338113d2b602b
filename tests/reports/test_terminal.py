"""The terminal table shows what student code printed or raised, never as control sequences."""



def test_control_characters_from_student_text_are_escaped() -> None:
    """CSI, OSC 52 (clipboard) and a bidirectional override in an exception message reach the terminal as escapes."""
    from autograder.model.scores import GradeReport, ProblemResult, TestResult
    from autograder.reports.terminal import render

    hostile = "boom\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202e\x9b31m"
    problem = ProblemResult("qkv_arithmetic", "Q", tests=[TestResult("qkv_arithmetic", "t", 1.0, False, False, hostile)])
    problem.output = "printed\x1b[1A\x1b[K\n"
    text = render(GradeReport("sub", [problem], [], 0.1))
    assert not any(c in text for c in "\x1b\x07\u202e\x9b"), repr(text)
    assert "boom\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\u202e\\x9b31m" in text and "printed\\x1b[1A" in text
