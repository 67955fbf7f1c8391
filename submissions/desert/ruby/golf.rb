G=$<.read.chomp;w=G.split[0].size+1;s=G.index('S');T=G.index('E');a,b=s.divmod(w);e,f=T.divmod(w)
D=(e>a ?'D':'U')*(e-a).abs+(f>b ?'R':'L')*(f-b).abs;W=G.chars.map(&:to_i);P=[s];V={s=>1};$p=0;$C=5
D.each_char{|d|P<<P[-1]+{'U'=>-w,'D'=>w,'L'=>-1,'R'=>1}[d]}
def m(i,a)
 q=P[i];puts((i>$p ? D[$p] : 'UDLR'['DURL'.index(D[i])])+'%+d'%a);$p=i;$C-=1;V[q]=1
 if q!=T;W[q]-=a*(i>0?1:0);$C+=a;end
end
def g(j,n)
 while W[P[j]]<n
  (j-1).downto(1){|i|g(i,2)}
  y=[3,9-W[P[j]]].min
  (1...j).each{|i|m(i,1)}
  m(j,-y)
  (j-1).downto(1){|i|m(i,$C<2?1:0)}
  m(0,6-$C)
 end
end
n=D.size
(n-5).downto(1){|i|g(i,1)}
(1..n).each{|i|m(i,i<=n-5?1:0)}
puts G.chars.each_with_index.map{|c,k|"SE\n"[c]? c: W[k]>0 ? W[k].to_s : V[k]?'#':'.'}.join
