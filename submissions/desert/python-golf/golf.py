import sys
M=sys.stdin.read().split()
G={(r,c):v for r,l in enumerate(M)for c,v in enumerate(l)}
W={k:v.isdigit()and int(v)for k,v in G.items()}
s,e=[k for v in'SE'for k in G if G[k]==v]
D='UD'[e[0]>s[0]]*abs(e[0]-s[0])+'LR'[e[1]>s[1]]*abs(e[1]-s[1])
P=[s]
for d in D:r,c=P[-1];P+=[(r+(d=='D')-(d=='U'),c+(d=='R')-(d=='L'))]
V={s};p=0;C=5
def m(i,a):
 global p,C;q=P[i];print((D[p]if i>p else'UDLR'['DURL'.find(D[i])])+'+-'[a<0]+str(abs(a)));p=i;C-=1;V.add(q)
 if q!=e:W[q]-=a*(i>0);C+=a
def t(j,x):
 for i in range(1,j):m(i,1)
 m(j,-x)
 for i in range(j-1,0,-1):m(i,C==1)
 m(0,6-C)
def f(j,n):
 while W[P[j]]<n:
  for i in range(j-1,0,-1):f(i,2)
  t(j,min(3,9-W[P[j]]))
n=len(D)
for i in range(n-5,0,-1):f(i,1)
for i in range(1,n+1):m(i,i<=n-5)
for r,l in enumerate(M):print(''.join(v if v in'SE'else str(W[r,c]or'')or'.#'[(r,c)in V]for c,v in enumerate(l)))