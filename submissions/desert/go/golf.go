package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

var (
	D    string
	W, P []int
	V    = map[int]bool{}
	p, t int
	C    = 5
	out  = bufio.NewWriter(os.Stdout)
)

func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// m walks to position i of the path and picks up (a > 0) or drops (a < 0) water.
func m(i, a int) {
	q := P[i]
	var d byte
	if i > p {
		d = D[p]
	} else {
		d = "UDLR"[strings.IndexByte("DURL", D[i])]
	}
	fmt.Fprintf(out, "%c%+d\n", d, a)
	p = i
	C--
	V[q] = true
	if q != t {
		W[q] -= a * one(i > 0)
		C += a
	}
}

// g makes sure position j of the path holds at least n units, ferrying from S.
func g(j, n int) {
	for W[P[j]] < n {
		for i := j - 1; i > 0; i-- {
			g(i, 2)
		}
		y := min(3, 9-W[P[j]])
		for i := 1; i < j; i++ {
			m(i, 1)
		}
		m(j, -y)
		for i := j - 1; i > 0; i-- {
			m(i, one(C < 2))
		}
		m(0, 6-C)
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func main() {
	in, _ := io.ReadAll(os.Stdin)
	G := string(in[:len(in)-1])
	w := len(strings.Fields(G)[0]) + 1
	s := strings.IndexByte(G, 'S')
	t = strings.IndexByte(G, 'E')
	a, b, e, f := s/w, s%w, t/w, t%w
	D = strings.Repeat("UD"[one(e > a):][:1], abs(e-a)) + strings.Repeat("LR"[one(f > b):][:1], abs(f-b))
	for _, c := range []byte(G) {
		W = append(W, int(c-'0')*one(c >= '1' && c <= '9'))
	}
	P = []int{s}
	V[s] = true
	step := map[byte]int{'U': -w, 'D': w, 'L': -1, 'R': 1}
	for i := 0; i < len(D); i++ {
		P = append(P, P[len(P)-1]+step[D[i]])
	}
	n := len(D)
	for i := n - 5; i > 0; i-- {
		g(i, 1)
	}
	for i := 1; i <= n; i++ {
		m(i, one(i <= n-5))
	}
	var o strings.Builder
	for k, c := range []byte(G) {
		switch {
		case strings.IndexByte("SE\n", c) >= 0:
			o.WriteByte(c)
		case W[k] > 0:
			fmt.Fprint(&o, W[k])
		case V[k]:
			o.WriteByte('#')
		default:
			o.WriteByte('.')
		}
	}
	fmt.Fprintln(out, o.String())
	out.Flush()
}
