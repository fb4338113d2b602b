"""The output buffer: the first part and the last lines of a flood, and where a call was just before its limit."""

import json
import time

from autograder.sandbox.output import OUTPUT_LIMIT, OutputBuffer


def stack_line(frames):
    return b"\n\x00autograder-stack " + json.dumps(frames).encode() + b"\n"


def test_the_place_written_before_the_limit_is_found_even_in_a_flood_and_never_shown():
    buffer = OutputBuffer()
    buffer.feed(b"x" * (OUTPUT_LIMIT + 10))
    start = buffer.fed
    line = stack_line([["/box/submission-1/m.py", 3, "f"], ["/box/main.py", 9, "<module>"]])
    buffer.feed(b"y" * 100 + line[:20])  # the line straddles two reads of the pipe
    buffer.feed(line[20:] + b"last words\n" + b"z" * 100_000 + b"\nthe end\n")
    assert buffer.stopped_at(start) == [("/box/submission-1/m.py", 3, "f"), ("/box/main.py", 9, "<module>")]
    assert buffer.stopped_at(buffer.fed) == []  # written before the call that asks
    shown = buffer.text()
    assert "more bytes of output dropped" in shown and shown.endswith("the end\n") and "autograder-stack" not in shown


def test_a_place_in_what_is_kept_is_not_shown_either():
    buffer = OutputBuffer()
    buffer.feed(b"before\n" + stack_line([["/s/submission-2/m.py", 1, "g"]]) + b"after\n")
    assert buffer.text() == "before\nafter\n" and buffer.stopped_at() == [("/s/submission-2/m.py", 1, "g")]


def test_a_flood_that_finished_is_called_a_flood_before_its_first_line():
    buffer = OutputBuffer()
    flood = b"line\n" * (OUTPUT_LIMIT // 5 + 1000)
    buffer.feed(flood)
    shown = buffer.text()
    assert shown.startswith(f"[a flood of output: {len(flood):,} bytes printed, of which the first {OUTPUT_LIMIT:,} ")
    buffer.clear()
    buffer.feed(b"a few lines\n")
    assert buffer.text() == "a few lines\n"


def test_a_place_line_of_deep_brackets_is_no_place_and_the_buffer_keeps_working():
    buffer = OutputBuffer()
    buffer.feed(b"\n\x00autograder-stack " + b"[" * 1800 + b"]" * 1800 + b"\n")
    buffer.feed(b"after\n")
    assert buffer.stopped_at() == [] and buffer.text().endswith("after\n")


def test_the_drain_thread_outlives_a_line_of_deep_brackets():
    import os

    from autograder.sandbox.output import Drain

    read, write = os.pipe()
    buffer = OutputBuffer()
    with open(read, "rb") as stream:
        drain = Drain(stream, buffer)
        os.write(write, b"\n\x00autograder-stack " + b"[" * 1800 + b"]" * 1800 + b"\n")
        os.write(write, b"still read\n")
        os.close(write)
        drain.join(timeout=10)
    assert buffer.text().endswith("still read\n")


class _SlowStream:
    """A pipe whose reader is descheduled between taking bytes from the pipe and returning them (a loaded machine)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def read1(self, n: int) -> bytes:
        import os
        import time

        chunk = os.read(self.fd, n)
        time.sleep(0.3)
        return chunk


def test_a_settled_drain_has_fed_every_byte_already_taken_from_the_pipe():
    """Output printed before a settle is the test's that printed it, even when the drain has taken it from the pipe but
    not yet fed it (it would then count for the next test: a hidden one's output is never shown)."""
    import os

    from autograder.sandbox.output import Drain

    read, write = os.pipe()
    buffer = OutputBuffer()
    drain = Drain(_SlowStream(read), buffer)
    try:
        os.write(write, b"printed by the test\n")
        while _pending(read):  # the drain has taken the bytes, and is still on its way to feed them
            time.sleep(0.001)
        deadline = time.monotonic() + 5
        while not drain.caught_up() and time.monotonic() < deadline:
            time.sleep(0.002)
        assert buffer.text() == "printed by the test\n"
    finally:
        os.close(write)
        drain.join(timeout=5)
        os.close(read)


def _pending(fd: int) -> int:
    import fcntl
    import termios

    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4), "little")


def test_what_was_printed_is_shown_as_valid_inert_text():
    buffer = OutputBuffer()
    buffer.feed(b"\x1b[2Jcleared \xff\r\nnext\n")
    assert buffer.text() == "\\x1b[2Jcleared \ufffd\nnext\n"


def test_what_a_hidden_test_prints_is_counted_never_shown():
    buffer = OutputBuffer()
    buffer.mark()
    buffer.feed(b"at import\n")
    buffer.begin("test_public", hidden=False)
    buffer.feed(b"public says hi\n")
    buffer.begin("test_secret", hidden=True)
    buffer.feed(b"[[0.25, -1.5]]\n")
    buffer.begin("test_public_2", hidden=False)
    buffer.feed(b"public again\n")
    buffer.begin("test_secret", hidden=True)  # its second pass
    buffer.feed(b"[[0.25]]\n")
    shown = buffer.shown()
    assert shown.text == "at import\npublic says hi\npublic again\n"
    assert shown.hidden == {"test_secret": len(b"[[0.25, -1.5]]\n") + len(b"[[0.25]]\n")}
    assert "0.25" in buffer.text()  # staff keep everything


def test_a_hidden_flood_is_not_shown_in_the_tail_nor_counted_as_dropped():
    buffer = OutputBuffer()
    buffer.mark()
    buffer.begin("test_public", hidden=False)
    buffer.feed(b"p" * 100 + b"\n")
    buffer.begin("test_secret", hidden=True)
    buffer.feed((b"secret " * 20 + b"\n") * 10_000)
    buffer.begin("test_public_2", hidden=False)
    buffer.feed(b"\nlast public line\n")
    shown = buffer.shown()
    assert "secret" not in shown.text and shown.text.startswith("p" * 100)
    assert shown.text.endswith("last public line\n") and "[... 18 more bytes of output dropped]" in shown.text, shown.text[-300:]


def test_what_a_worker_printed_while_it_started_outlives_the_windows():
    buffer = OutputBuffer()
    buffer.feed(b"the last submission's output\n")
    started_at = buffer.fed  # a new worker starts here
    buffer.feed(b"ModuleNotFoundError: No module named 'torch'\n")
    buffer.mark()  # a problem's window begins before the grader learns the worker failed
    assert buffer.text() == ""
    assert buffer.fed_since(started_at) == "ModuleNotFoundError: No module named 'torch'\n"  # nothing from before it
    buffer.feed(b"x" * 5000)
    assert len(buffer.fed_since(started_at)) == 2000  # the last bytes only


def test_a_drain_on_a_pipe_counts_what_is_left_in_it_exactly():
    import os

    from autograder.sandbox.output import Drain

    read, write = os.pipe()
    with open(read, "rb") as stream:
        drain = Drain(stream, OutputBuffer())
        assert drain.exact
        os.close(write)
        drain.join(timeout=10)
