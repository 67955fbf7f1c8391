# a daemon, then a long wait: the run is still going when verify is killed
( setsid sleep 3072 & )
sleep 120
