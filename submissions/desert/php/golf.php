<?php
$G=substr(stream_get_contents(STDIN),0,-1);$w=strcspn($G,"\n")+1;$s=strpos($G,'S');$t=strpos($G,'E');
$a=intdiv($s,$w);$b=$s%$w;$e=intdiv($t,$w);$f=$t%$w;
$D=str_repeat($e>$a?'D':'U',abs($e-$a)).str_repeat($f>$b?'R':'L',abs($f-$b));
$W=array_map('intval',str_split($G));$P=[$s];$V=[$s=>1];$p=0;$C=5;
foreach(str_split($D)as$d)$P[]=end($P)+['U'=>-$w,'D'=>$w,'L'=>-1,'R'=>1][$d];
function m($i,$a){global$P,$D,$p,$C,$V,$W,$t;$q=$P[$i];
echo($i>$p?$D[$p]:'UDLR'[strpos('DURL',$D[$i])]).sprintf('%+d',$a)."\n";$p=$i;$C--;$V[$q]=1;
if($q!=$t){$W[$q]-=$a*($i>0);$C+=$a;}}
function g($j,$n){global$P,$W,$C;while($W[$P[$j]]<$n){for($i=$j-1;$i>0;$i--)g($i,2);$y=min(3,9-$W[$P[$j]]);
for($i=1;$i<$j;$i++)m($i,1);m($j,-$y);for($i=$j-1;$i>0;$i--)m($i,$C<2?1:0);m(0,6-$C);}}
$n=strlen($D);for($i=$n-5;$i>0;$i--)g($i,1);for($i=1;$i<=$n;$i++)m($i,$i<=$n-5?1:0);
$o='';foreach(str_split($G)as$k=>$c)$o.=strpos("SE\n",$c)!==false?$c:($W[$k]>0?$W[$k]:(isset($V[$k])?'#':'.'));echo"$o\n";
