# Desert crossing in AWK (runs on mawk and gawk): dies twice, then wins on any map.
#
# Deaths: pace between S and one of its neighbours (not E) until the water runs out,
# for the first two such neighbours in the order D, U, R, L: distinct routes.
# The win pushes caches of water outward along a shortest path S = p[0] .. p[n] = E
# (vertical leg first). A trip to p[j] leaves S full, takes one unit from each cache
# on the way out, drops up to 3 units on p[j] and walks back taking one unit only when
# it would run dry. supply(j, need) tops every earlier cache up to 2 (farthest first)
# before each trip. The final walk takes one unit on p[1..n-5] and ends dry on E.
# Water already lying on the path counts as cache, and no tile ever exceeds 9.

{ rows[NR - 1] = $0 }

END {
    H = NR; W = length(rows[0])
    dr["U"] = -1; dr["D"] = 1; dr["L"] = 0; dr["R"] = 0
    dc["U"] = 0; dc["D"] = 0; dc["L"] = -1; dc["R"] = 1
    back["U"] = "D"; back["D"] = "U"; back["L"] = "R"; back["R"] = "L"
    for (r = 0; r < H; r++)
        for (c = 0; c < W; c++) {
            ch = substr(rows[r], c + 1, 1)
            start_water[r, c] = (ch ~ /[1-9]/) ? ch + 0 : 0
            if (ch == "S") { sr = r; sc = c }
            if (ch == "E") { er = r; ec = c }
        }

    deaths = 0
    split("D U R L", order, " ")
    for (k = 1; k <= 4 && deaths < 2; k++) {
        d = order[k]; nr = sr + dr[d]; nc = sc + dc[d]
        if (nr < 0 || nc < 0 || nr >= H || nc >= W || (nr == er && nc == ec)) continue
        begin_attempt()
        for (step = 0; step < 5; step++) turn(step % 2 ? back[d] : d, 0)
        print_map()
        deaths++
    }

    begin_attempt()
    n = 0; pr[0] = sr; pc[0] = sc
    vertical = er > sr ? "D" : "U"; horizontal = ec > sc ? "R" : "L"
    for (k = 0; k < (er > sr ? er - sr : sr - er); k++) add_step(vertical)
    for (k = 0; k < (ec > sc ? ec - sc : sc - ec); k++) add_step(horizontal)
    for (i = n - 5; i > 0; i--) supply(i, 1)
    for (i = 1; i <= n; i++) turn(dir[i], i <= n - 5 ? 1 : 0)
    print_map()
}

function add_step(d) {
    n++; dir[n] = d; pr[n] = pr[n - 1] + dr[d]; pc[n] = pc[n - 1] + dc[d]
}

function begin_attempt(    key) {
    for (key in start_water) water[key] = start_water[key]
    for (key in seen) delete seen[key]
    ar = sr; ac = sc; carried = 5
}

# One turn: move, drink one unit, then pick up (units > 0) or drop (units < 0).
function turn(d, units) {
    ar += dr[d]; ac += dc[d]
    seen[ar, ac] = 1
    carried--
    print d (units < 0 ? "-" (-units) : "+" units)
    if (ar == er && ac == ec) return
    if (!(ar == sr && ac == sc)) water[ar, ac] -= units
    carried += units
}

function trip(j, drop,    i) {
    for (i = 1; i < j; i++) turn(dir[i], 1)
    turn(dir[j], -drop)
    for (i = j - 1; i > 0; i--) turn(back[dir[i + 1]], carried == 1 ? 1 : 0)
    turn(back[dir[1]], 6 - carried)          # back on S: fill up
}

function supply(j, need,    i, room) {
    while (water[pr[j], pc[j]] < need) {
        for (i = j - 1; i > 0; i--) supply(i, 2)
        room = 9 - water[pr[j], pc[j]]
        trip(j, room < 3 ? room : 3)
    }
}

function print_map(    r, c, ch, line) {
    for (r = 0; r < H; r++) {
        line = ""
        for (c = 0; c < W; c++) {
            ch = substr(rows[r], c + 1, 1)
            if (ch == "S" || ch == "E") line = line ch
            else if (water[r, c] > 0) line = line water[r, c]
            else if ((r, c) in seen) line = line "#"
            else line = line "."
        }
        print line
    }
}
