"""Match logs: what is written is what `verify maze show` replays."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.maze.generate import generate_maze
from verify.contests.maze.match import Match, Reply
from verify.contests.maze.matchlog import LogWriter, read_log, show
from verify.errors import InputError


def _play(path, maze, replies, patience=0):
    replies = iter(replies)
    with LogWriter(path) as log:
        log({"type": "match", "architect": "a", "solver": "s", "size": maze.size, "seed": 1,
             "mode": "per-step", "step_limit": maze.size ** 3})
        log({"type": "maze", "text": maze.to_text()})
        match = Match(maze)
        result = match.play(lambda state: next(replies), log, patience)
    return match, result


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 1000), st.lists(st.integers(0, 5), min_size=125, max_size=125))
def test_replay_gives_back_every_position_and_the_fog(tmp_path_factory, seed, choices):
    maze = generate_maze(5, seed)
    path = tmp_path_factory.mktemp("log") / "match.jsonl"
    positions, replies = [], []
    match = Match(maze)
    # choices 0..3: the n-th offered move (garbage if there is none); 4: garbage; 5: a timeout.
    # The replies are worked out on a twin match, then played again while logging.
    for choice in choices:
        if match.over:
            break
        moves = match.fog.valid_moves()
        if choice == 5:
            r = Reply(failure="timeout")
        elif choice == 4 or choice >= len(moves):
            r = Reply("9 9")
        else:
            r = Reply(f"{moves[choice][0]} {moves[choice][1]}")
        match.apply(r)
        replies.append(r)
        positions.append(match.position)
    played, result = _play(path, maze, replies)
    replayed = read_log(path)
    assert replayed.maze == maze and len(replayed.steps) == result.steps_taken
    assert replayed.positions()[1:] == positions
    fog = replayed.fog_after()
    assert (fog.horizontal, fog.vertical, fog.position) == (played.fog.horizontal, played.fog.vertical,
                                                           played.position)
    assert replayed.result["steps"] == result.steps


def test_show_names_failures_events_and_the_result(tmp_path):
    maze = generate_maze(5, 1)
    path = tmp_path / "m.jsonl"
    _play(path, maze, [Reply("left")] * 3, patience=3)
    text = show(path)
    assert "step 3 of 3" in text
    assert "failed steps so far: 3; last: step 3: answer 'left' is not 'row column'" in text
    assert "step 3: gave up after 3 failed steps in a row" in text
    assert "result: gave up after 3 failed steps in a row; 125 steps charged" in text
    assert "@" in show(path, step=0) and "step 0 of 3" in show(path, step=0, fog=True)
    with pytest.raises(InputError, match="--step 4 is outside 0..3"):
        show(path, step=4)


@pytest.mark.parametrize("content, message", [
    ("not json\n", "line 1: not a match-log record"),
    ('{"type":"step","n":1,"at":[0,0]}\n', "line 1: a 'step' record before the maze"),
    ('{"type":"maze","text":"5\\n"}\n', "line 1: bad maze record"),
    ('{"type":"match"}\n', "no maze in this log"),
])
def test_bad_logs_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_log(path)


def test_a_step_out_of_order_is_refused(tmp_path):
    maze = generate_maze(5, 1)
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"type": "maze", "text": maze.to_text()}) + "\n"
                    + json.dumps({"type": "step", "n": 2, "at": [0, 0]}) + "\n")
    with pytest.raises(InputError, match="line 2: step record out of order"):
        read_log(path)
