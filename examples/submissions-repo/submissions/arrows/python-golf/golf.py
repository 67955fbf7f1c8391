import re,sys
h=input();R,C,*_=map(int,(h+' '+h).split());n=R*C
X=re.findall(r'(\d+)([A-Z]*)',sys.stdin.read());V=[int(a)for a,b in X];A=[b for a,b in X];V[A.index('')]=n
S=[0]*(n+8);P=S[:]
for c in range(n):
 a=A[c];u=('S'in a)-('N'in a);v=('E'in a)-('W'in a);r=c//C+u;q=c%C+v
 while a and-1<r<R and-1<q<C:x=r*C+q;S[c]|=1<<x;P[x]|=1<<c;r+=u;q+=v
W={v:c for c,v in enumerate(V)if v};K=sorted(W);g=[[W[a],a,b]for a,b in zip(K,K[1:])]
def t(M):
 T=[]
 for i in range(0,n,8):
  U=[0]
  for v in range(1,256):U+=[U[v&v-1]|M[i+len(bin(v&-v))-3]]
  T+=U,
 return T
Y=t(S),t(P)
def s(m,M,f):
 o=0
 for U in Y[M]:o|=U[m&255];m>>=8
 return o&f
def D(f):
 z=b=F=H=0;k=n;I={};J={}
 for G in g:
  c,a,e=G;l=e-a;q=W[e]
  if l<2:
   if S[c]>>q&1:continue
   return
  F|=1<<c;H|=1<<q;I[c]=G;J[q]=G
  B=[1<<q]
  for j in range(l-1):B+=s(B[-1],1,f),
  m=1<<c
  for j in range(1,l):
   m=s(m,0,f)&B[l-j]
   if m<1:return
   z|=m
   if j in(1,l-1)and m.bit_count()<k:k=m.bit_count();b=G,m,j
 if z!=f:return
 for x in range(n):
  for M,Q,j,O in(P,F,1,I),(S,H,9,J):
   p=M[x]&(f|Q)
   if f>>x&1 and p&Q==p>0==p&p-1:b=O[len(bin(p))-3],1<<x,j
 if b==0:return 1
 G,m,j=b;c,a,e=G
 while m:
  l=m&-m;x=len(bin(l))-3;m^=l
  if j<2:G[:2]=x,a+1;V[x]=a+1
  else:G[2]=e-1;W[e-1]=x;V[x]=e-1
  if D(f^l):return 1
 G[:]=c,a,e
D(sum(1<<c for c in range(n)if V[c]<1))
print(h)
for r in range(R):print(*[str(V[c])+A[c]for c in range(r*C,r*C+C)])
