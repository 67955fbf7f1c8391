G=io.read("a"):sub(1,-2)w=G:find("\n")or#G+1 s=G:find("S")-1 t=G:find("E")-1
a,b,e,f=s//w,s%w,t//w,t%w
D=(e>a and"D"or"U"):rep(math.abs(e-a))..(f>b and"R"or"L"):rep(math.abs(f-b))
W={}for k=0,#G-1 do W[k]=tonumber(G:sub(k+1,k+1))or 0 end
P={[0]=s}V={[s]=1}p=0 C=5
for i=1,#D do P[i]=P[i-1]+({U=-w,D=w,L=-1,R=1})[D:sub(i,i)]end
function m(i,a)local q,d=P[i]
if i>p then d=D:sub(p+1,p+1)else local x=("DURL"):find(D:sub(i+1,i+1))d=("UDLR"):sub(x,x)end
print(d..("%+d"):format(a))p=i C=C-1 V[q]=1
if q~=t then W[q]=W[q]-(i>0 and a or 0)C=C+a end end
function g(j,n)while W[P[j]]<n do for i=j-1,1,-1 do g(i,2)end local y=math.min(3,9-W[P[j]])
for i=1,j-1 do m(i,1)end m(j,-y)for i=j-1,1,-1 do m(i,C<2 and 1 or 0)end m(0,6-C)end end
n=#D for i=n-5,1,-1 do g(i,1)end for i=1,n do m(i,i<=n-5 and 1 or 0)end
o={}for k=0,#G-1 do local c=G:sub(k+1,k+1)o[#o+1]=("SE\n"):find(c,1,true)and c or W[k]>0 and W[k]or V[k]and"#"or"."end print(table.concat(o))
