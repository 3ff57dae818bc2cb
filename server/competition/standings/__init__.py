"""Standings (COMPETITION.md): one tournament's live table and every read of it.

From the bottom up, each module importing only those above it:

    rows.py          EntryRow (an entry as the board takes it), Rec (a row as stored)
    sorted_rows.py   SortedRows: the rows in rank order, and every read of them
    leaderboard.py   Leaderboard(SortedRows): the writing half, upserts and the clock
    disqualified.py  the disqualified unranked, listed at the end, as readers see them
    table.py         Table: one tournament's Leaderboard, loaded from the store; View
    results.py       results.csv of a closed tournament
    reading.py       Standings: the competition's part (window, windows, page, table)

The first four are pure. A tournament's runtime object (tournament.py) holds its Table;
nothing outside this package touches a board's or a table's private fields.
"""
