"""A problem's level, from a rubric applied to evidence rather than from its author's feeling.

Three inputs, each worth 0 to 2 points, decide the level; a fourth, the solve rate, moves it
once enough students have tried:

- **the answer's size**: the lines of code the reference has that the starter does not (read
  from the two, never declared): up to 4 lines 0 points, up to 20 lines 1, more 2. A debugging
  problem whose fix is a line is small however long its starter is.
- **the ideas it combines**: the distinct things about JAX a student must know and put
  together, listed by name in the notebook's ``metadata.grader.rubric.ideas`` so that a
  reviewer can argue with each: one idea 0 points, two 1, three or more 2.
- **what is left to the student** (``rubric.left``): ``named`` (0 points), the statement or the
  objective names the API or the rule that solves it; ``found`` (1), the student must find the
  cause or the rule in what the problem shows (an error, a jaxpr, a lowered module); ``derived``
  (2), the student must work out rules of JAX that the problem does not give (predicting what it
  will do, writing an interpreter).

0 or 1 point is easy, 2 or 3 medium, 4 and more hard. With at least ``MIN_ATTEMPTS`` students
who tried, a solve rate of ``EASIER_FROM`` or more takes the level one step down, and one of
``HARDER_UP_TO`` or less one step up: what the class did outweighs the rubric's guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.problem_metadata import DIFFICULTIES

LEFT_TO_STUDENT = ("named", "found", "derived")
SMALL_ANSWER_LINES = 4
MEDIUM_ANSWER_LINES = 20
MIN_ATTEMPTS = 20
EASIER_FROM = 0.9
HARDER_UP_TO = 0.3


@dataclass(frozen=True)
class Rubric:
    """The evidence a problem's level is read from."""

    answer_lines: int
    ideas: tuple[str, ...]
    left: str
    attempts: int = 0
    solved: int = 0

    @property
    def size_points(self) -> int:
        return 0 if self.answer_lines <= SMALL_ANSWER_LINES else 1 if self.answer_lines <= MEDIUM_ANSWER_LINES else 2

    @property
    def idea_points(self) -> int:
        return min(len(self.ideas), 3) - 1 if self.ideas else 0

    @property
    def left_points(self) -> int:
        return LEFT_TO_STUDENT.index(self.left)

    @property
    def points(self) -> int:
        return self.size_points + self.idea_points + self.left_points

    @property
    def solve_rate(self) -> float | None:
        """The share of the students who tried that solved it; None until enough have tried."""
        return self.solved / self.attempts if self.attempts >= MIN_ATTEMPTS else None

    @property
    def level(self) -> str:
        step = 0 if self.points <= 1 else 1 if self.points <= 3 else 2
        rate = self.solve_rate
        if rate is not None and rate >= EASIER_FROM:
            step -= 1
        elif rate is not None and rate <= HARDER_UP_TO:
            step += 1
        return DIFFICULTIES[max(0, min(step, len(DIFFICULTIES) - 1))]

    def explained(self) -> str:
        """One line for staff: each input, its points, and the level they give."""
        rate = self.solve_rate
        solved = f"solved by {rate:.0%} of {self.attempts}" if rate is not None else "solve rate not yet known"
        return (
            f"{self.level}: answer of {self.answer_lines} new line{'s' if self.answer_lines != 1 else ''} "
            f"({self.size_points}), {len(self.ideas)} idea{'s' if len(self.ideas) != 1 else ''} "
            f"[{'; '.join(self.ideas)}] ({self.idea_points}), left to the student: {self.left} ({self.left_points}); "
            f"{self.points} points; {solved}"
        )


def answer_lines(reference_code: str, starter: str) -> int:
    """The reference's lines of code that the starter does not have, compared without
    indentation, comments, imports or blank lines (``reference_code`` without its docstring)."""
    starter_lines = set(_code_lines(starter))
    return sum(1 for line in _code_lines(reference_code) if line not in starter_lines)


def _code_lines(code: str) -> list[str]:
    lines = (" ".join(line.split()) for line in code.splitlines())
    return [line for line in lines if line and not line.startswith(("#", "import ", "from "))]
