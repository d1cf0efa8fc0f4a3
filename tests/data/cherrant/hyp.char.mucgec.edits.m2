S 1
A 71 71|||M|||成|||REQUIRED|||-NONE-|||0

S 2
A 19 20|||S|||，|||REQUIRED|||-NONE-|||0
A 38 39|||S|||子|||REQUIRED|||-NONE-|||0

S 3
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 4
A 11 11|||M|||什 么|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 5
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0
A 46 46|||M|||，|||REQUIRED|||-NONE-|||0

S 6
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 7
A 23 24|||S|||的 办 法 ，|||REQUIRED|||-NONE-|||0

S 8
A 25 25|||M|||我|||REQUIRED|||-NONE-|||0
A 30 31|||S|||趣|||REQUIRED|||-NONE-|||0

S 9
A 14 14|||M|||从|||REQUIRED|||-NONE-|||0

S 10
A 37 37|||M|||着 想|||REQUIRED|||-NONE-|||0

S 11
A 56 56|||M|||的|||REQUIRED|||-NONE-|||0

S 12
A 21 22|||S|||订|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 13
A 14 14|||M|||混|||REQUIRED|||-NONE-|||0
A 27 27|||M|||育|||REQUIRED|||-NONE-|||0
A 36 37|||S|||，|||REQUIRED|||-NONE-|||0
A 48 49|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 58 59|||S|||，|||REQUIRED|||-NONE-|||0

S 14
A 23 24|||S|||，|||REQUIRED|||-NONE-|||0
A 27 28|||S|||处|||REQUIRED|||-NONE-|||0
A 33 34|||S|||处|||REQUIRED|||-NONE-|||0
A 40 41|||S|||访|||REQUIRED|||-NONE-|||0
A 61 62|||S|||里|||REQUIRED|||-NONE-|||0
A 70 71|||S|||，|||REQUIRED|||-NONE-|||0

S 15
A 0 7|||W|||我 的 梦 想 是 什 么|||REQUIRED|||-NONE-|||0

S 16
A 18 20|||S|||力 ，|||REQUIRED|||-NONE-|||0
A 31 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 77 77|||M|||，|||REQUIRED|||-NONE-|||0

S 17
A 3 4|||S|||时|||REQUIRED|||-NONE-|||0
A 10 11|||S|||凉|||REQUIRED|||-NONE-|||0
A 18 19|||S|||，|||REQUIRED|||-NONE-|||0
A 55 56|||S|||，|||REQUIRED|||-NONE-|||0
A 75 76|||S|||“|||REQUIRED|||-NONE-|||0
A 81 82|||S|||“|||REQUIRED|||-NONE-|||0

S 18
A 49 49|||M|||。|||REQUIRED|||-NONE-|||0
A 109 109|||M|||来|||REQUIRED|||-NONE-|||0
A 113 113|||M|||？|||REQUIRED|||-NONE-|||0
A 121 122|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 19
A 9 10|||S|||人|||REQUIRED|||-NONE-|||0

S 20
A 2 3|||S|||认 为|||REQUIRED|||-NONE-|||0
A 14 15|||S|||，|||REQUIRED|||-NONE-|||0
A 23 23|||M|||活|||REQUIRED|||-NONE-|||0
A 30 31|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 46 47|||S|||，|||REQUIRED|||-NONE-|||0
A 83 84|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 21
A 2 2|||M|||从|||REQUIRED|||-NONE-|||0

S 22
A 22 24|||S|||把|||REQUIRED|||-NONE-|||0

S 23
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 9 9|||M|||快|||REQUIRED|||-NONE-|||0

S 25
A 5 5|||M|||大|||REQUIRED|||-NONE-|||0
A 13 14|||S|||，|||REQUIRED|||-NONE-|||0

S 26
A 11 12|||S|||、|||REQUIRED|||-NONE-|||0

S 27
A 12 13|||S|||， 对|||REQUIRED|||-NONE-|||0

S 28
A 9 9|||M|||上|||REQUIRED|||-NONE-|||0
A 11 12|||S|||、|||REQUIRED|||-NONE-|||0

S 29
A 4 5|||S|||，|||REQUIRED|||-NONE-|||0
A 12 13|||S|||子|||REQUIRED|||-NONE-|||0
A 14 14|||M|||，|||REQUIRED|||-NONE-|||0
A 18 19|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 30
A 22 23|||S|||，|||REQUIRED|||-NONE-|||0

S 31
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0
A 41 42|||S|||点|||REQUIRED|||-NONE-|||0
A 48 49|||S|||对|||REQUIRED|||-NONE-|||0
A 57 58|||S|||，|||REQUIRED|||-NONE-|||0
A 68 68|||M|||时 候|||REQUIRED|||-NONE-|||0

S 32
A 21 21|||M|||中 国|||REQUIRED|||-NONE-|||0
A 26 27|||S|||上 拥 有|||REQUIRED|||-NONE-|||0
A 29 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 34 35|||S|||的|||REQUIRED|||-NONE-|||0
A 36 37|||S|||家 ，|||REQUIRED|||-NONE-|||0
A 48 50|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 33
A 8 9|||S|||，|||REQUIRED|||-NONE-|||0

S 34
A 19 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 39 40|||S|||，|||REQUIRED|||-NONE-|||0
A 53 54|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 62 63|||S|||，|||REQUIRED|||-NONE-|||0
A 70 71|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 35
A 33 34|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 36
A 8 8|||M|||，|||REQUIRED|||-NONE-|||0
A 34 35|||S|||出|||REQUIRED|||-NONE-|||0
A 36 36|||M|||，|||REQUIRED|||-NONE-|||0
A 44 45|||S|||，|||REQUIRED|||-NONE-|||0
A 60 61|||S|||，|||REQUIRED|||-NONE-|||0
A 74 75|||S|||，|||REQUIRED|||-NONE-|||0

S 37
A 1 1|||M|||与|||REQUIRED|||-NONE-|||0

S 38
A 19 20|||S|||都|||REQUIRED|||-NONE-|||0

S 39
A 18 20|||S|||得|||REQUIRED|||-NONE-|||0
A 22 25|||S|||以 及|||REQUIRED|||-NONE-|||0
A 34 35|||S|||，|||REQUIRED|||-NONE-|||0

S 40
A 16 18|||S|||发 生|||REQUIRED|||-NONE-|||0

S 41
A 9 10|||S|||，|||REQUIRED|||-NONE-|||0
A 32 33|||S|||，|||REQUIRED|||-NONE-|||0
A 48 49|||S|||做|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0
A 75 76|||S|||，|||REQUIRED|||-NONE-|||0

S 42
A 17 18|||S|||体|||REQUIRED|||-NONE-|||0
A 29 30|||S|||，|||REQUIRED|||-NONE-|||0
A 36 37|||S|||体|||REQUIRED|||-NONE-|||0
A 46 48|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 43
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 9 9|||M|||过|||REQUIRED|||-NONE-|||0
A 13 13|||M|||但|||REQUIRED|||-NONE-|||0
A 20 20|||M|||海|||REQUIRED|||-NONE-|||0

S 44
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 45
A 15 16|||S|||什|||REQUIRED|||-NONE-|||0
A 19 20|||S|||，|||REQUIRED|||-NONE-|||0

S 46
A 6 6|||M|||都|||REQUIRED|||-NONE-|||0
A 9 10|||S|||采 取 了|||REQUIRED|||-NONE-|||0

S 47
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0

S 48
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 49
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 50
A 12 13|||S|||量|||REQUIRED|||-NONE-|||0
A 20 21|||S|||，|||REQUIRED|||-NONE-|||0
A 30 31|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 51
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 7 9|||S|||满 足|||REQUIRED|||-NONE-|||0
A 20 20|||M|||，|||REQUIRED|||-NONE-|||0
A 38 39|||S|||地|||REQUIRED|||-NONE-|||0
A 41 42|||S|||，|||REQUIRED|||-NONE-|||0
A 54 54|||M|||，|||REQUIRED|||-NONE-|||0

S 53
A 6 7|||S|||题|||REQUIRED|||-NONE-|||0
A 8 9|||S|||：|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 33 34|||S|||，|||REQUIRED|||-NONE-|||0
A 39 40|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 54
A 23 23|||M|||都|||REQUIRED|||-NONE-|||0
A 33 34|||S|||和|||REQUIRED|||-NONE-|||0

S 55
A 28 29|||S|||挨|||REQUIRED|||-NONE-|||0
A 38 38|||M|||病|||REQUIRED|||-NONE-|||0

S 56
A 5 5|||M|||明|||REQUIRED|||-NONE-|||0
A 14 15|||S|||烟|||REQUIRED|||-NONE-|||0
A 23 24|||S|||，|||REQUIRED|||-NONE-|||0
A 48 49|||S|||赖|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0
A 61 62|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 64 65|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 57
A 28 28|||M|||，|||REQUIRED|||-NONE-|||0
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A 39 40|||S|||，|||REQUIRED|||-NONE-|||0

S 59
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 60
A 13 13|||M|||了|||REQUIRED|||-NONE-|||0

S 61
A 23 24|||S|||要 的|||REQUIRED|||-NONE-|||0
A 26 26|||M|||孩 子|||REQUIRED|||-NONE-|||0
A 91 92|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 95 95|||M|||、|||REQUIRED|||-NONE-|||0

S 62
A 13 15|||S|||在 于|||REQUIRED|||-NONE-|||0

S 63
A 6 6|||M|||有|||REQUIRED|||-NONE-|||0

S 64
A 6 7|||S|||，|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 28 29|||S|||，|||REQUIRED|||-NONE-|||0
A 57 58|||S|||，|||REQUIRED|||-NONE-|||0

S 65
A 41 42|||S|||决|||REQUIRED|||-NONE-|||0
A 49 50|||S|||，|||REQUIRED|||-NONE-|||0

S 66
A 13 14|||S|||有|||REQUIRED|||-NONE-|||0

S 67
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 20 20|||M|||不|||REQUIRED|||-NONE-|||0
A 63 64|||S|||；|||REQUIRED|||-NONE-|||0
A 79 80|||S|||个|||REQUIRED|||-NONE-|||0
A 123 124|||S|||，|||REQUIRED|||-NONE-|||0
A 128 129|||S|||情|||REQUIRED|||-NONE-|||0
A 136 136|||M|||那 么|||REQUIRED|||-NONE-|||0

S 68
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||问 题|||REQUIRED|||-NONE-|||0
A 18 19|||S|||有|||REQUIRED|||-NONE-|||0
A 29 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 36|||S|||，|||REQUIRED|||-NONE-|||0
A 43 44|||S|||更|||REQUIRED|||-NONE-|||0
A 47 48|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 53 54|||S|||有|||REQUIRED|||-NONE-|||0

S 70
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 26 26|||M|||是 对 孩 子|||REQUIRED|||-NONE-|||0
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 71
A 7 9|||S|||天|||REQUIRED|||-NONE-|||0
A 20 21|||S|||，|||REQUIRED|||-NONE-|||0
A 41 42|||S|||，|||REQUIRED|||-NONE-|||0

S 72
A 3 3|||M|||那 儿|||REQUIRED|||-NONE-|||0

S 73
A 18 19|||S|||，|||REQUIRED|||-NONE-|||0

S 74
A 7 7|||M|||都|||REQUIRED|||-NONE-|||0

S 75
A 7 7|||M|||的|||REQUIRED|||-NONE-|||0
A 11 12|||S|||，|||REQUIRED|||-NONE-|||0
A 30 31|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 32 32|||M|||量|||REQUIRED|||-NONE-|||0

S 76
A 48 49|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 19 19|||M|||会|||REQUIRED|||-NONE-|||0

S 78
A 8 8|||M|||的|||REQUIRED|||-NONE-|||0
A 9 9|||M|||带 来|||REQUIRED|||-NONE-|||0

S 79
A 1 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 10|||M|||住 了 9 0 年|||REQUIRED|||-NONE-|||0

S 80
A 23 24|||S|||带|||REQUIRED|||-NONE-|||0

S 81
A 14 15|||S|||：|||REQUIRED|||-NONE-|||0
A 32 32|||M|||，|||REQUIRED|||-NONE-|||0
A 38 39|||S|||，|||REQUIRED|||-NONE-|||0
A 50 51|||S|||，|||REQUIRED|||-NONE-|||0
A 64 65|||S|||事 情 ，|||REQUIRED|||-NONE-|||0
A 84 85|||S|||，|||REQUIRED|||-NONE-|||0
A 101 102|||S|||，|||REQUIRED|||-NONE-|||0
A 119 120|||S|||，|||REQUIRED|||-NONE-|||0

S 82
A 11 12|||S|||限|||REQUIRED|||-NONE-|||0

S 83
A 11 12|||S|||呢|||REQUIRED|||-NONE-|||0

S 84
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 85
A 26 27|||S|||，|||REQUIRED|||-NONE-|||0

S 86
A 12 12|||M|||,|||REQUIRED|||-NONE-|||0
A 61 62|||S|||，|||REQUIRED|||-NONE-|||0

S 87
A 16 16|||M|||会|||REQUIRED|||-NONE-|||0
A 34 35|||S|||，|||REQUIRED|||-NONE-|||0
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 52 52|||M|||人|||REQUIRED|||-NONE-|||0
A 58 59|||S|||，|||REQUIRED|||-NONE-|||0
A 61 62|||S|||给|||REQUIRED|||-NONE-|||0

S 88
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 89
A 22 22|||M|||了|||REQUIRED|||-NONE-|||0

S 90
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 91
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 92
A 15 17|||S|||加|||REQUIRED|||-NONE-|||0
A 23 25|||S|||等|||REQUIRED|||-NONE-|||0

S 93
A 0 1|||S|||除 了|||REQUIRED|||-NONE-|||0
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 35|||M|||，|||REQUIRED|||-NONE-|||0
A 47 47|||M|||吸 烟|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0
A 86 87|||S|||，|||REQUIRED|||-NONE-|||0
A 96 97|||S|||希|||REQUIRED|||-NONE-|||0
A 103 106|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 94
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0

S 95
A 16 17|||S|||很|||REQUIRED|||-NONE-|||0

S 96
A 41 41|||M|||上|||REQUIRED|||-NONE-|||0
A 45 46|||S|||，|||REQUIRED|||-NONE-|||0
A 73 74|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 78 79|||S|||良|||REQUIRED|||-NONE-|||0

S 97
A 25 26|||S|||一|||REQUIRED|||-NONE-|||0
A 41 42|||S|||，|||REQUIRED|||-NONE-|||0
A 67 67|||M|||对|||REQUIRED|||-NONE-|||0
A 71 73|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 76 77|||S|||，|||REQUIRED|||-NONE-|||0

S 98
A 12 12|||M|||的|||REQUIRED|||-NONE-|||0

S 99
A 16 17|||S|||，|||REQUIRED|||-NONE-|||0
A 34 36|||S|||感 到|||REQUIRED|||-NONE-|||0
A 59 60|||S|||，|||REQUIRED|||-NONE-|||0
A 64 65|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 80 80|||M|||。|||REQUIRED|||-NONE-|||0
A 82 83|||S|||了|||REQUIRED|||-NONE-|||0

S 100
A 1 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
