#!/usr/bin/perl
# Desert crossing in Perl: "I want to watch you die". Before winning, the traveller
# dies up to four times, each time by a different route: the first walks in
# lexicographic order (D, L, R, U) that never reach E, stay on the map, pick up
# nothing, and run dry on their fifth turn. Then it wins by pushing caches of water
# outward along a shortest path (vertical leg first): a trip to p[j] leaves S full,
# takes one unit per cache on the way out, drops up to 3 units on p[j], and comes
# back taking one unit only when it would run dry; every cache before p[j] is topped
# up to 2 first. The final walk takes one unit on p[1..d-5] and ends dry on E.
use strict;
use warnings;

my @rows = grep { length } split /\n/, do { local $/; <STDIN> };
my ($height, $width) = (scalar @rows, length $rows[0]);
my (@start, @end);
for my $r (0 .. $height - 1) {
    for my $c (0 .. $width - 1) {
        my $ch = substr $rows[$r], $c, 1;
        @start = ($r, $c) if $ch eq 'S';
        @end = ($r, $c) if $ch eq 'E';
    }
}
my %step = (U => [-1, 0], D => [1, 0], L => [0, -1], R => [0, 1]);
my %back = (U => 'D', D => 'U', L => 'R', R => 'L');
$| = 0;

# -- one attempt: the state of the map and of the traveller -----------------------
my (%water, %seen, @at, $carried, @turns);

sub begin_attempt {
    %water = ();
    for my $r (0 .. $height - 1) {
        for my $c (0 .. $width - 1) {
            my $ch = substr $rows[$r], $c, 1;
            $water{"$r,$c"} = $ch =~ /[1-9]/ ? $ch : 0;
        }
    }
    %seen = ();
    @at = @start;
    $carried = 5;
}

sub turn {
    my ($direction, $units) = @_;
    $units ||= 0;
    $at[0] += $step{$direction}[0];
    $at[1] += $step{$direction}[1];
    my $key = "$at[0],$at[1]";
    $seen{$key} = 1;
    $carried--;
    push @turns, $direction . ($units < 0 ? '-' : '+') . abs $units;
    flush_turns() if @turns >= 8192;
    return if $at[0] == $end[0] && $at[1] == $end[1];
    $water{$key} -= $units unless $at[0] == $start[0] && $at[1] == $start[1];
    $carried += $units;
}

sub flush_turns {
    print map { "$_\n" } @turns;
    @turns = ();
}

sub end_attempt {
    flush_turns();
    for my $r (0 .. $height - 1) {
        my $line = '';
        for my $c (0 .. $width - 1) {
            my $ch = substr $rows[$r], $c, 1;
            $line .= $ch =~ /[SE]/ ? $ch
                   : $water{"$r,$c"} ? $water{"$r,$c"}
                   : $seen{"$r,$c"} ? '#' : '.';
        }
        print "$line\n";
    }
}

# -- deaths: the first four five-turn walks that never reach E --------------------
sub walks {
    my ($r, $c, $left, $so_far, $found) = @_;
    return if @$found >= 4;
    if ($left == 0) { push @$found, $so_far; return }
    for my $d (qw(D L R U)) {
        my ($nr, $nc) = ($r + $step{$d}[0], $c + $step{$d}[1]);
        next if $nr < 0 || $nc < 0 || $nr >= $height || $nc >= $width;
        next if $nr == $end[0] && $nc == $end[1];
        walks($nr, $nc, $left - 1, $so_far . $d, $found);
    }
}

my @deaths;
walks(@start, 5, '', \@deaths);
for my $route (@deaths) {
    begin_attempt();
    turn($_) for split //, $route;
    end_attempt();
}

# -- the winning attempt -------------------------------------------------------------
begin_attempt();
my $path = ($end[0] > $start[0] ? 'D' : 'U') x abs($end[0] - $start[0])
         . ($end[1] > $start[1] ? 'R' : 'L') x abs($end[1] - $start[1]);
my @path = split //, $path;
my @squares = ("$start[0],$start[1]");
{
    my @here = @start;
    for my $d (@path) {
        $here[0] += $step{$d}[0];
        $here[1] += $step{$d}[1];
        push @squares, "$here[0],$here[1]";
    }
}
sub cache { $water{ $squares[$_[0]] } }

sub trip {
    my ($j, $drop) = @_;
    turn($path[$_ - 1], 1) for 1 .. $j - 1;
    turn($path[$j - 1], -$drop);
    for (my $i = $j - 1; $i > 0; $i--) {
        turn($back{ $path[$i] }, $carried == 1 ? 1 : 0);
    }
    turn($back{ $path[0] }, 6 - $carried);    # on S: fill up
}

sub supply {
    my ($j, $need) = @_;
    while (cache($j) < $need) {
        supply($_, 2) for reverse 1 .. $j - 1;
        my $room = 9 - cache($j);
        trip($j, $room < 3 ? $room : 3);
    }
}

my $d = @path;
supply($_, 1) for reverse 1 .. $d - 5;
turn($path[$_ - 1], $_ <= $d - 5 ? 1 : 0) for 1 .. $d;
end_attempt();
