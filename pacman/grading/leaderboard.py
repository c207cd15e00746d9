"""A class leaderboard: ``autograder.py --submissions DIR --leaderboard``.

Every submission plays the suite's ``EvalAgentTest`` games (the same layouts, ghosts and
seeds for all, each in its own sandboxed worker: see :mod:`pacman.grading.kind_eval`); this
module ranks what they did and writes ``PREFIX-leaderboard.csv``, ``.json`` and ``.html``,
with each submission's best and worst game as a record ``pacman --replay`` plays and as an
HTML replay page any browser opens (:mod:`pacman.view.html_replay`), which the page links.

Ranking (:data:`RANKING`): every submission whose code loaded above every one whose code did
not (no file, an import error), whatever its games; then more wins, then fewer failed games
(crashes and timeouts), then a higher mean score, then fewer timeouts, then the name.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable
from typing import Any

from pacman import untrusted

COLUMNS = ("rank", "submission", "wins", "games", "mean_score", "crashes", "timeouts", "error")
#: Added with --baseline-agents: whether the row is a fixed agent, and the ones it beats.
BASELINE_COLUMNS = ("baseline", "beats")
#: The rule, as the JSON and the HTML page state it.
RANKING = (
    "Every submission whose code loaded ranks above every one whose code did not (no file, "
    "an import error), even one whose every game crashed. Within each: more wins first, then "
    "fewer crashed or timed-out games, then a higher mean score, then fewer timeouts, then "
    "the name."
)


def game_totals(tests: Iterable[Any]) -> dict[str, Any]:
    """The games of every EvalAgentTest among ``tests`` (TestResults or grades.json test
    records) added up: games, wins, mean score, crashes, timeouts, best and worst game."""
    totals: dict[str, Any] = {"games": 0, "wins": 0, "crashes": 0, "timeouts": 0}
    scores: list[float] = []
    best = worst = None
    for test in tests:
        games = test.get("games") if isinstance(test, dict) else getattr(test, "games", None)
        if not games:
            continue
        for key in ("games", "wins", "crashes", "timeouts"):
            totals[key] += int(games[key])
        scores += [float(s) for s in games["scores"]]
        if games["best"] is not None and (best is None or games["best"]["score"] > best["score"]):
            best = games["best"]
        if games["worst"] is not None and (
            worst is None or games["worst"]["score"] < worst["score"]
        ):
            worst = games["worst"]
    totals["mean_score"] = sum(scores) / len(scores) if scores else 0.0
    totals["best"], totals["worst"] = best, worst
    return totals


def failed_games_note(totals: dict[str, Any]) -> str:
    """Why the best and worst games ended early, as their records say (``worst game: Your
    code timed out: ...``); empty when neither crashed nor timed out."""
    reasons = {kind: (totals[kind] or {}).get("crash") for kind in ("best", "worst")}
    if reasons["best"] and reasons["best"] == reasons["worst"]:
        return f"best and worst games: {reasons['best']}"
    return "; ".join(f"{kind} game: {reason}" for kind, reason in reasons.items() if reason)


def _standing(row: dict[str, Any]) -> tuple[Any, ...]:
    """What ranks a row (:data:`RANKING`), lower first; the name breaks ties after it."""
    return (
        bool(row["error"]),
        -row["wins"],
        row["crashes"] + row["timeouts"],
        -row["mean_score"] if row["games"] else float("inf"),
        row["timeouts"],
    )


def rank(
    records: list[dict[str, Any]], baselines: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """One row per graded submission (its grades.json record), best first; with
    ``baselines`` (records of fixed agents), those too, each submission's ``beats`` naming
    the baselines it ranks strictly above (a tie beats none)."""
    rows: list[dict[str, Any]] = []
    for record in [*records, *(baselines or [])]:
        tests = [t for q in record["questions"].values() for t in q.get("tests", [])]
        totals = game_totals(tests)
        rows.append(
            {
                "submission": record["submission"],
                "wins": totals["wins"],
                "games": totals["games"],
                "mean_score": round(totals["mean_score"], 3),
                "crashes": totals["crashes"],
                "timeouts": totals["timeouts"],
                "error": record.get("error") or "",
                "note": record.get("error") or failed_games_note(totals),
                "best": totals["best"],
                "worst": totals["worst"],
                "baseline": len(rows) >= len(records),
            }
        )
    # Code that did not load played no game, so it failed none: it goes below all code that
    # loaded. A crashed or timed-out game ends early, often above the score of a game played
    # to a loss: games that failed count before the mean score, so failing never pays.
    rows.sort(key=lambda r: (_standing(r), r["submission"]))
    fixed = [row for row in rows if row["baseline"]]
    for place, row in enumerate(rows, start=1):
        row["rank"] = place
        beaten = [] if row["baseline"] else fixed
        row["beats"] = [b["submission"] for b in beaten if _standing(row) < _standing(b)]
        if baselines is not None and not row["baseline"]:
            said = f"beats {len(row['beats'])} of {len(fixed)} baselines"
            said += f": {', '.join(row['beats'])}" if row["beats"] else ""
            row["note"] = f"{said}; {row['note']}" if row["note"] else said
    return rows


def _cell(value: Any) -> Any:
    """A CSV cell: a list (``beats``) as names joined by "; ", a flag as yes or no."""
    if isinstance(value, list):
        return "; ".join(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def _slug(name: str, place: int) -> str:
    """A file name for a submission's replays: its name's safe characters and its rank."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "submission"
    return f"{place:03d}-{safe[:60]}"


def write_leaderboard(
    records: list[dict[str, Any]], prefix: str, baselines: list[dict[str, Any]] | None = None
) -> list[str]:
    """Write the ranking as ``PREFIX-leaderboard.csv``/``.json``/``.html`` and the best and
    worst game of each submission under ``PREFIX-leaderboard-replays/``; return the paths.
    With ``baselines``, their rows too, and columns ``baseline`` and ``beats``."""
    from pacman.outputs import write_atomically
    from pacman.view import html_replay

    rows = rank(records, baselines)
    columns = COLUMNS + (BASELINE_COLUMNS if baselines is not None else ())
    base = f"{prefix}-leaderboard"
    replays = base + "-replays"
    os.makedirs(replays, exist_ok=True)
    links: dict[int, dict[str, tuple[str, str]]] = {}
    for row in rows:
        links[row["rank"]] = {}
        for kind in ("best", "worst"):
            record = row[kind]
            if record is None:
                continue
            stem = os.path.join(replays, f"{_slug(row['submission'], row['rank'])}-{kind}")
            write_atomically(stem + ".json", json.dumps(record) + "\n")
            html_replay.write_replay(record, stem + ".html")
            links[row["rank"]][kind] = (stem + ".json", stem + ".html")
    table = [untrusted.csv_row(list(columns))]
    table += [untrusted.csv_row([_cell(row[c]) for c in columns]) for row in rows]
    write_atomically(base + ".csv", "".join(table))
    data = {
        "ranking": RANKING,
        "submissions": [
            {
                **{c: row[c] for c in columns},
                "note": row["note"],
                "replays": {
                    kind: {
                        "record": os.path.relpath(record, os.path.dirname(base) or "."),
                        "html": os.path.relpath(page, os.path.dirname(base) or "."),
                    }
                    for kind, (record, page) in links[row["rank"]].items()
                },
            }
            for row in rows
        ],
    }
    write_atomically(base + ".json", json.dumps(data, indent=2) + "\n")
    write_atomically(base + ".html", _page(rows, links, os.path.dirname(base) or "."))
    return [base + ".csv", base + ".json", base + ".html"]


def _page(
    rows: list[dict[str, Any]], links: dict[int, dict[str, tuple[str, str]]], folder: str
) -> str:
    """The ranking as one self-contained HTML page (every submission string escaped)."""

    def cell(value: Any) -> str:
        return f"<td>{html.escape(untrusted.line(value))}</td>"

    def replay(place: int, kind: str, row: dict[str, Any]) -> str:
        found = links[place].get(kind)
        if found is None:
            return "<td></td>"
        _, page = found
        target = os.path.relpath(page, folder)
        label = f"{row[kind]['score']:g}"
        return f'<td><a href="{html.escape(target, quote=True)}">{html.escape(label)}</a></td>'

    head = "".join(
        f"<th>{name}</th>"
        for name in (
            "Rank",
            "Submission",
            "Wins",
            "Games",
            "Mean score",
            "Crashes",
            "Timeouts",
            "Best game",
            "Worst game",
            "Note",
        )
    )
    body = []
    for row in rows:
        place = row["rank"]
        body.append(
            "<tr>"
            + "".join(
                cell(row[c])
                for c in (
                    "rank",
                    "submission",
                    "wins",
                    "games",
                    "mean_score",
                    "crashes",
                    "timeouts",
                )
            )
            + replay(place, "best", row)
            + replay(place, "worst", row)
            + cell(row["note"])
            + "</tr>"
        )
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Leaderboard</title>\n'
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:2px 8px;text-align:right}"
        "td:nth-child(2),td:last-child{text-align:left}</style></head><body>\n"
        f"<h1>Leaderboard</h1>\n<p>{html.escape(RANKING)} A game link replays the game in "
        "this browser; beside each page, "
        "the game's record (<code>.json</code>) plays with <code>pacman --replay FILE</code>.</p>\n"
        f"<table><tr>{head}</tr>\n" + "\n".join(body) + "\n</table></body></html>\n"
    )
