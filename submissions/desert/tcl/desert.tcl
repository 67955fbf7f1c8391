# Desert crossing in Tcl: dies once, then wins on any map.
#
# The death paces between S and its first neighbour (in the order R, L, D, U) that is
# on the map and is not E, until the water runs out. The win pushes caches of water
# outward along a shortest path S = p(0) .. p(n) = E (horizontal leg first): a trip to
# p(j) leaves S full, takes one unit from each cache on the way out, drops up to 3
# units on p(j) and walks back, taking one unit only when it would run dry; supply
# tops every earlier cache up to 2 (farthest first) before each trip. The final walk
# takes one unit on p(1..n-5) and arrives on E with its last unit.

fconfigure stdout -buffering full -translation lf
set rows {}
foreach line [split [read stdin] "\n"] {
    if {$line ne ""} { lappend rows $line }
}
set H [llength $rows]
set W [string length [lindex $rows 0]]
array set step {U {-1 0} D {1 0} L {0 -1} R {0 1}}
array set back {U D D U L R R L}
for {set r 0} {$r < $H} {incr r} {
    for {set c 0} {$c < $W} {incr c} {
        set ch [string index [lindex $rows $r] $c]
        set start_water($r,$c) [expr {[string is digit $ch] ? $ch : 0}]
        if {$ch eq "S"} { set sr $r; set sc $c }
        if {$ch eq "E"} { set er $r; set ec $c }
    }
}

proc begin_attempt {} {
    global water start_water seen ar ac sr sc carried
    array unset water
    array set water [array get start_water]
    array unset seen
    set ar $sr; set ac $sc; set carried 5
}

# One turn: move, drink one unit, then pick up (units > 0) or drop (units < 0).
proc turn {d units} {
    global step water seen ar ac sr sc er ec carried
    lassign $step($d) dr dc
    incr ar $dr; incr ac $dc
    set seen($ar,$ac) 1
    incr carried -1
    if {$units < 0} { puts "$d$units" } else { puts "$d+$units" }
    if {$ar == $er && $ac == $ec} return
    if {!($ar == $sr && $ac == $sc)} { incr water($ar,$ac) [expr {-$units}] }
    incr carried $units
}

proc print_map {} {
    global rows H W water seen
    for {set r 0} {$r < $H} {incr r} {
        set line ""
        for {set c 0} {$c < $W} {incr c} {
            set ch [string index [lindex $rows $r] $c]
            if {$ch eq "S" || $ch eq "E"} {
                append line $ch
            } elseif {$water($r,$c) > 0} {
                append line $water($r,$c)
            } elseif {[info exists seen($r,$c)]} {
                append line "#"
            } else {
                append line "."
            }
        }
        puts $line
    }
}

# The death.
foreach d {R L D U} {
    lassign $step($d) dr dc
    set nr [expr {$sr + $dr}]; set nc [expr {$sc + $dc}]
    if {$nr < 0 || $nc < 0 || $nr >= $H || $nc >= $W || ($nr == $er && $nc == $ec)} continue
    begin_attempt
    for {set k 0} {$k < 5} {incr k} { turn [expr {$k % 2 ? $back($d) : $d}] 0 }
    print_map
    break
}

# The path.
set path {}
set horizontal [expr {$ec > $sc ? "R" : "L"}]
set vertical [expr {$er > $sr ? "D" : "U"}]
for {set k 0} {$k < abs($ec - $sc)} {incr k} { lappend path $horizontal }
for {set k 0} {$k < abs($er - $sr)} {incr k} { lappend path $vertical }
set n [llength $path]
set squares [list [list $sr $sc]]
set r $sr; set c $sc
foreach d $path {
    lassign $step($d) dr dc
    incr r $dr; incr c $dc
    lappend squares [list $r $c]
}

proc cache {i} {
    global water squares
    lassign [lindex $squares $i] r c
    return $water($r,$c)
}

# path(k) is the direction from p(k) to p(k+1).
proc trip {j drop} {
    global path back carried
    for {set i 1} {$i < $j} {incr i} { turn [lindex $path [expr {$i - 1}]] 1 }
    turn [lindex $path [expr {$j - 1}]] [expr {-$drop}]
    for {set i [expr {$j - 1}]} {$i > 0} {incr i -1} {
        turn $back([lindex $path $i]) [expr {$carried == 1 ? 1 : 0}]
    }
    turn $back([lindex $path 0]) [expr {6 - $carried}]
}

proc supply {j need} {
    while {[cache $j] < $need} {
        for {set i [expr {$j - 1}]} {$i > 0} {incr i -1} { supply $i 2 }
        set room [expr {9 - [cache $j]}]
        trip $j [expr {$room < 3 ? $room : 3}]
    }
}

begin_attempt
for {set i [expr {$n - 5}]} {$i > 0} {incr i -1} { supply $i 1 }
for {set i 1} {$i <= $n} {incr i} {
    turn [lindex $path [expr {$i - 1}]] [expr {$i <= $n - 5 ? 1 : 0}]
}
print_map
