#!/usr/bin/env python3
"""Writes the golden tests' small fixed inputs (run once; the files are committed).

Deterministic: a fixed linear congruential generator, no library, so the files never change
with a Python version."""

state = 12345


def rand():
    global state
    state = (state * 1103515245 + 12345) % 2**31
    return state / 2**31


def write(name, text):
    with open(name, "w", newline="\n") as f:
        f.write(text)


# Planar points with a shift type (select, assign) and candidates on a 10 x 10 square.
rows = ["x,y,shift"]
for i in range(60):
    cx, cy = [(2, 2), (8, 3), (5, 8)][i % 3]
    rows.append(f"{cx + rand() * 3 - 1.5:.3f},{cy + rand() * 3 - 1.5:.3f},{'am' if rand() < 0.5 else 'pm'}")
write("points.csv", "\n".join(rows) + "\n")
write("candidates.csv", "name,x,y\n" + "".join(
    f"{n},{x},{y}\n" for n, x, y in
    [("A", 2, 2), ("B", 8, 3), ("C", 5, 8), ("D", 5, 5), ("E", 0, 10), ("F", 10, 0), ("G", 9, 9), ("H", 1, 6)]))
write("groups.csv", "group,capacity\n0,1\n1,1\n2,2\nelement,group\n"
      + "".join(f"{i},{i % 3}\n" for i in range(8)))

# Geographic pickups and waiting spots (demo --data, select --metric haversine).
rows = ["lat,lon"]
for i in range(40):
    lat0, lon0 = [(40.75, -73.99), (40.78, -73.96), (40.71, -74.01)][i % 3]
    rows.append(f"{lat0 + (rand() - 0.5) * 0.02:.5f},{lon0 + (rand() - 0.5) * 0.02:.5f}")
write("pickups.csv", "\n".join(rows) + "\n")
write("spots.csv", "name,lat,lon\n" + "".join(
    f"{n},{a},{b}\n" for n, a, b in
    [("Midtown", 40.754, -73.984), ("Uptown", 40.781, -73.958), ("Downtown", 40.711, -74.009),
     ("Chelsea", 40.746, -74.001), ("Harlem", 40.808, -73.945), ("Village", 40.733, -73.999)]))

# A table with a binary label, three categorical predictors and a numeric one.
rows = ["y,a,b,c,age"]
for _ in range(120):
    a = int(rand() * 3)
    b = int(rand() * 4)
    c = int(rand() * 2)
    age = int(rand() * 90)
    y = 1 if (a == 2) ^ (rand() < 0.15) or (age > 70 and rand() < 0.5) else 0
    rows.append(f"{y},{a},{b},{c},{age}")
write("table.csv", "\n".join(rows) + "\n")
write("table.schema.toml", """target = "y"
columns = [
    { name = "y", type = "categorical", levels = ["0", "1"] },
    { name = "a", type = "categorical", levels = ["0", "1", "2"] },
    { name = "b", type = "categorical", levels = ["0", "1", "2", "3"] },
    { name = "c", type = "categorical", levels = ["0", "1"] },
    { name = "age", type = "numeric", bounds = [0, 90], bins = 3 },
]
""")

# Transactions: FIMI lines and the same as (order, item) pairs; a public item list.
lines = []
for t in range(80):
    items = sorted({1 + int(rand() ** 2 * 12) for _ in range(2 + int(rand() * 5))})
    lines.append(items)
write("transactions.dat", "".join(" ".join(map(str, t)) + "\n" for t in lines))
write("orders.csv", "order,item\n" + "".join(f"{i},{x}\n" for i, t in enumerate(lines) for x in t))
write("items.txt", "".join(f"{i}\n" for i in range(1, 14)))

# Scores for sample.
write("scores.txt", "".join(f"{s}\n" for s in [10, 9.5, 9, 7, 5, 5, 3, 2.5, 1, 0, -1, -4]))

# A graph of 30 vertices for cut: two hubs and random edges (one edge per line).
edges = [f"v0 v{i}" for i in range(1, 12)] + [f"v1 v{i}" for i in range(12, 24)]
for _ in range(25):
    a, b = int(rand() * 30), int(rand() * 30)
    edges.append(f"v{a},v{b}")
write("edges.txt", "# edges\n" + "\n".join(edges) + "\n")
write("vertices.txt", " ".join(f"v{i}" for i in range(30)) + "\n")

# Who is reached by which (seed:topic) pair, for topics: 80 people, 5 seeds, 2 topics.
lines = []
for u in range(80):
    pairs = [f"s{s}:{t}" for s in range(5) for t in ("news", "sport") if rand() < 0.15]
    lines.append(" ".join(pairs))
write("reach.txt", "\n".join(lines) + "\n")
write("seeds.txt", "s0 s1 s2 s3 s4\n")
