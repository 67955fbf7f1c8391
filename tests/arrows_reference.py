"""The spec's reference boards (shared/spec/arrows.md), as the tests use them."""
from verify.contests.arrows.model import parse_lists

PUZZLE_1_TEXT = '''
    [[1, "ZO"], [0, "ZW"], [0, "Z"]],
    [[0, "Z"],  [0, "N"],  [0, "N"]],
    [[0, "O"],  [0, "NO"], [9, ""]]
'''
SOLUTION_1_TEXT = '''
    [[1, "ZO"], [3, "ZW"], [8, "Z"]],
    [[4, "Z"],  [2, "N"],  [7, "N"]],
    [[5, "O"],  [6, "NO"], [9, ""]]
'''
PUZZLE_2_TEXT = '''
    [[1, "Z"],   [0, "O"],  [0, "ZO"], [0, "W"],  [0, "W"]],
    [[0, "NO"],  [0, "ZO"], [0, "O"],  [0, "Z"],  [0, "ZW"]],
    [[0, "ZO"],  [0, "ZW"], [0, "N"],  [0, "ZW"], [0, "ZW"]],
    [[17, "N"],  [0, "NO"], [0, "NW"], [0, "NW"], [0, "N"]],
    [[0, "O"],   [0, "W"],  [0, "W"],  [0, "NO"], [25, ""]]
'''
SOLUTION_2_TEXT = '''
    [[1, "Z"],   [3, "O"],   [6, "ZO"],  [5, "W"],   [4, "W"]],
    [[2, "NO"],  [24, "ZO"], [21, "O"],  [22, "Z"],  [13, "ZW"]],
    [[18, "ZO"], [16, "ZW"], [20, "N"],  [14, "ZW"], [7, "ZW"]],
    [[17, "N"],  [19, "NO"], [15, "NW"], [23, "NW"], [12, "N"]],
    [[10, "O"],  [9, "W"],   [8, "W"],   [11, "NO"], [25, ""]]
'''
PUZZLE_1 = parse_lists(PUZZLE_1_TEXT)
SOLUTION_1 = parse_lists(SOLUTION_1_TEXT)
PUZZLE_2 = parse_lists(PUZZLE_2_TEXT)
SOLUTION_2 = parse_lists(SOLUTION_2_TEXT)
PUZZLE_1_CONTEST_TEXT = "3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 9\n"
