`exec('''G=open(0).read()[:-1];w=len(G.split()[0])+1;s=G.find('S');t=G.find('E');a,b=divmod(s,w);e,f=divmod(t,w)
D='UD'[e>a]*abs(e-a)+'LR'[f>b]*abs(f-b);W=[c.isdigit()and int(c)for c in G];P=[s];V={s};p=0;C=5
for d in D:P+=[P[-1]+{'U':-w,'D':w,'L':-1,'R':1}[d]]
def m(i,a):
 global p,C;q=P[i];print((D[p]if i>p else'UDLR'['DURL'.find(D[i])])+'%+d'%a);p=i;C-=1;V.add(q)
 if q-t:W[q]-=a*(i>0);C+=a
def f(j,n):
 while W[P[j]]<n:
  for i in range(j-1,0,-1):f(i,2)
  y=min(3,9-W[P[j]])
  for i in range(1,j):m(i,1)
  m(j,-y)
  for i in range(j-1,0,-1):m(i,C<2)
  m(0,6-C)
n=len(D)
for i in range(n-5,0,-1):f(i,1)
for i in range(1,n+1):m(i,i<=n-5)
print(''.join(c if c<'.'or c>'9'else str(W[k]or'')or'.#'[k in V]for k,c in enumerate(G)))''',{});exit()`†