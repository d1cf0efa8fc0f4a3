S 1
A 71 71|||M|||成|||REQUIRED|||-NONE-|||0

S 2
A 6 11|||W|||学 习 了 一 年|||REQUIRED|||-NONE-|||0
A 19 20|||S|||，|||REQUIRED|||-NONE-|||0
A 38 39|||S|||子|||REQUIRED|||-NONE-|||0

S 3
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 4
A 7 7|||M|||，|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 5
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0
A 38 38|||M|||对|||REQUIRED|||-NONE-|||0
A 46 46|||M|||， 但 对|||REQUIRED|||-NONE-|||0

S 6
A 5 5|||M|||，|||REQUIRED|||-NONE-|||0

S 7
A 8 23|||W|||给 别 的 国 家 看 工 业 革 命 的 进 步 的 办 法|||REQUIRED|||-NONE-|||0

S 8
A 30 31|||S|||趣|||REQUIRED|||-NONE-|||0

S 9
A 14 14|||M|||从|||REQUIRED|||-NONE-|||0

S 10
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

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
A 29 31|||S|||坏 处|||REQUIRED|||-NONE-|||0
A 33 34|||S|||处|||REQUIRED|||-NONE-|||0
A 40 41|||S|||访|||REQUIRED|||-NONE-|||0
A 61 62|||S|||住|||REQUIRED|||-NONE-|||0
A 69 71|||S|||吃 饭 ，|||REQUIRED|||-NONE-|||0

S 15
A 0 7|||W|||我 的 梦 想 是 什 么|||REQUIRED|||-NONE-|||0

S 16
A 18 20|||S|||力 ，|||REQUIRED|||-NONE-|||0
A 29 29|||M|||，|||REQUIRED|||-NONE-|||0
A 39 40|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 46 47|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 50 51|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 55 56|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 63 65|||S|||，|||REQUIRED|||-NONE-|||0

S 17
A 3 4|||S|||时|||REQUIRED|||-NONE-|||0
A 10 11|||S|||凉|||REQUIRED|||-NONE-|||0
A 18 19|||S|||，|||REQUIRED|||-NONE-|||0
A 55 56|||S|||，|||REQUIRED|||-NONE-|||0
A 75 76|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 79 80|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 81 82|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 85 86|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 49 49|||M|||。|||REQUIRED|||-NONE-|||0
A 113 113|||M|||？|||REQUIRED|||-NONE-|||0

S 19
A 9 10|||S|||人|||REQUIRED|||-NONE-|||0

S 20
A 14 15|||S|||，|||REQUIRED|||-NONE-|||0
A 46 47|||S|||，|||REQUIRED|||-NONE-|||0
A 49 50|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 83 84|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 21
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 22
A 22 24|||S|||把|||REQUIRED|||-NONE-|||0

S 23
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 18 18|||M|||发 生 了|||REQUIRED|||-NONE-|||0

S 25
A 5 5|||M|||大|||REQUIRED|||-NONE-|||0
A 13 14|||S|||，|||REQUIRED|||-NONE-|||0

S 26
A 17 20|||S|||阅 读|||REQUIRED|||-NONE-|||0

S 27
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0

S 28
A 9 9|||M|||上|||REQUIRED|||-NONE-|||0

S 29
A 4 5|||S|||，|||REQUIRED|||-NONE-|||0
A 12 13|||S|||子|||REQUIRED|||-NONE-|||0
A 18 19|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 30
A 22 23|||S|||，|||REQUIRED|||-NONE-|||0

S 31
A 24 25|||S|||都|||REQUIRED|||-NONE-|||0
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0
A 41 42|||S|||点|||REQUIRED|||-NONE-|||0
A 57 58|||S|||，|||REQUIRED|||-NONE-|||0

S 32
A 26 27|||S|||上|||REQUIRED|||-NONE-|||0
A 30 31|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 33 34|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 36 37|||S|||，|||REQUIRED|||-NONE-|||0

S 33
A 4 5|||S|||了|||REQUIRED|||-NONE-|||0
A 8 10|||S|||， 以|||REQUIRED|||-NONE-|||0

S 34
A 19 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 39 40|||S|||，|||REQUIRED|||-NONE-|||0
A 46 47|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 51 53|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 62 63|||S|||，|||REQUIRED|||-NONE-|||0
A 70 71|||S|||形 成|||REQUIRED|||-NONE-|||0

S 35
A 31 32|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 36
A 34 35|||S|||出|||REQUIRED|||-NONE-|||0
A 36 36|||M|||。|||REQUIRED|||-NONE-|||0
A 44 45|||S|||，|||REQUIRED|||-NONE-|||0
A 52 52|||M|||，|||REQUIRED|||-NONE-|||0
A 60 61|||S|||，|||REQUIRED|||-NONE-|||0
A 74 75|||S|||，|||REQUIRED|||-NONE-|||0

S 37
A 1 1|||M|||跟|||REQUIRED|||-NONE-|||0

S 38
A 10 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 39
A 18 20|||S|||得|||REQUIRED|||-NONE-|||0
A 22 23|||S|||，|||REQUIRED|||-NONE-|||0
A 34 35|||S|||，|||REQUIRED|||-NONE-|||0
A 41 43|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 40
A 16 18|||S|||发 生|||REQUIRED|||-NONE-|||0

S 41
A 9 10|||S|||，|||REQUIRED|||-NONE-|||0
A 32 33|||S|||，|||REQUIRED|||-NONE-|||0
A 48 49|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0
A 75 76|||S|||，|||REQUIRED|||-NONE-|||0

S 42
A 17 18|||S|||体|||REQUIRED|||-NONE-|||0
A 29 30|||S|||，|||REQUIRED|||-NONE-|||0
A 36 37|||S|||体|||REQUIRED|||-NONE-|||0

S 43
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 9 9|||M|||过|||REQUIRED|||-NONE-|||0
A 13 13|||M|||但|||REQUIRED|||-NONE-|||0
A 20 20|||M|||海|||REQUIRED|||-NONE-|||0

S 44
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 45
A 19 20|||S|||，|||REQUIRED|||-NONE-|||0

S 46
A 9 10|||S|||采 取|||REQUIRED|||-NONE-|||0

S 47
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0

S 48
A 28 29|||S|||，|||REQUIRED|||-NONE-|||0

S 49
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 50
A 12 13|||S|||量|||REQUIRED|||-NONE-|||0
A 20 21|||S|||，|||REQUIRED|||-NONE-|||0

S 51
A 34 35|||S|||；|||REQUIRED|||-NONE-|||0
A 54 56|||S|||阻 碍|||REQUIRED|||-NONE-|||0
A 74 75|||S|||，|||REQUIRED|||-NONE-|||0
A 86 87|||S|||使|||REQUIRED|||-NONE-|||0
A 93 94|||S|||得|||REQUIRED|||-NONE-|||0
A 114 115|||S|||，|||REQUIRED|||-NONE-|||0

S 52
A 7 9|||S|||满 足|||REQUIRED|||-NONE-|||0
A 11 12|||S|||对|||REQUIRED|||-NONE-|||0
A 20 20|||M|||，|||REQUIRED|||-NONE-|||0
A 38 39|||S|||地|||REQUIRED|||-NONE-|||0
A 41 42|||S|||，|||REQUIRED|||-NONE-|||0

S 53
A 6 7|||S|||题|||REQUIRED|||-NONE-|||0
A 8 9|||S|||，|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 33 34|||S|||，|||REQUIRED|||-NONE-|||0
A 44 45|||S|||、|||REQUIRED|||-NONE-|||0

S 54
A 23 23|||M|||都|||REQUIRED|||-NONE-|||0
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0
A 33 34|||S|||和|||REQUIRED|||-NONE-|||0

S 55
A 28 29|||S|||挨|||REQUIRED|||-NONE-|||0
A 38 38|||M|||病|||REQUIRED|||-NONE-|||0

S 56
A 5 5|||M|||明|||REQUIRED|||-NONE-|||0
A 15 16|||S|||话|||REQUIRED|||-NONE-|||0
A 23 24|||S|||，|||REQUIRED|||-NONE-|||0
A 48 49|||S|||赖|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0

S 57
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 28|||S|||，|||REQUIRED|||-NONE-|||0
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A 55 55|||M|||头|||REQUIRED|||-NONE-|||0
A 61 62|||S|||以|||REQUIRED|||-NONE-|||0
A 66 67|||S|||多|||REQUIRED|||-NONE-|||0

S 59
A 10 11|||S|||计|||REQUIRED|||-NONE-|||0

S 60
A 13 13|||M|||了|||REQUIRED|||-NONE-|||0

S 61
A 23 24|||S|||要 的|||REQUIRED|||-NONE-|||0
A 91 92|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 95 95|||M|||、|||REQUIRED|||-NONE-|||0

S 62
A 13 15|||S|||在 于|||REQUIRED|||-NONE-|||0

S 63
A 22 24|||S|||影 响|||REQUIRED|||-NONE-|||0

S 64
A 6 7|||S|||，|||REQUIRED|||-NONE-|||0
A 28 29|||S|||，|||REQUIRED|||-NONE-|||0
A 57 58|||S|||，|||REQUIRED|||-NONE-|||0

S 65
A 10 12|||S|||根 据|||REQUIRED|||-NONE-|||0
A 19 20|||S|||、|||REQUIRED|||-NONE-|||0
A 36 37|||S|||、|||REQUIRED|||-NONE-|||0
A 41 42|||S|||决|||REQUIRED|||-NONE-|||0
A 49 50|||S|||，|||REQUIRED|||-NONE-|||0

S 66
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 67
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 68
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 29 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 36|||S|||，|||REQUIRED|||-NONE-|||0
A 48 48|||M|||求|||REQUIRED|||-NONE-|||0
A 54 54|||M|||。|||REQUIRED|||-NONE-|||0
A 72 72|||M|||有|||REQUIRED|||-NONE-|||0
A 73 73|||M|||的|||REQUIRED|||-NONE-|||0

S 70
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 26 26|||M|||是|||REQUIRED|||-NONE-|||0

S 71
A 7 9|||S|||天|||REQUIRED|||-NONE-|||0
A 20 21|||S|||，|||REQUIRED|||-NONE-|||0
A 40 42|||S|||，|||REQUIRED|||-NONE-|||0
A 51 52|||S|||得|||REQUIRED|||-NONE-|||0

S 72
A 3 3|||M|||那 儿|||REQUIRED|||-NONE-|||0

S 73
A 13 14|||S|||处 理|||REQUIRED|||-NONE-|||0

S 74
A 15 15|||M|||人|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 7|||S|||的|||REQUIRED|||-NONE-|||0
A 11 12|||S|||，|||REQUIRED|||-NONE-|||0

S 76
A 35 35|||M|||有|||REQUIRED|||-NONE-|||0

S 77
A 19 19|||M|||能|||REQUIRED|||-NONE-|||0

S 78
A 9 9|||M|||带 来|||REQUIRED|||-NONE-|||0

S 79
A 1 2|||S|||在|||REQUIRED|||-NONE-|||0
A 5 5|||M|||前|||REQUIRED|||-NONE-|||0

S 80
A 23 24|||S|||养|||REQUIRED|||-NONE-|||0

S 81
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 38 39|||S|||，|||REQUIRED|||-NONE-|||0
A 50 51|||S|||，|||REQUIRED|||-NONE-|||0
A 64 65|||S|||事 ，|||REQUIRED|||-NONE-|||0
A 84 85|||S|||；|||REQUIRED|||-NONE-|||0
A 101 102|||S|||，|||REQUIRED|||-NONE-|||0
A 104 106|||S|||减 少|||REQUIRED|||-NONE-|||0
A 119 120|||S|||，|||REQUIRED|||-NONE-|||0
A 126 127|||S|||、|||REQUIRED|||-NONE-|||0

S 82
A 10 10|||M|||要|||REQUIRED|||-NONE-|||0

S 83
A 11 12|||S|||呢|||REQUIRED|||-NONE-|||0

S 84
A 6 6|||M|||形 成|||REQUIRED|||-NONE-|||0

S 85
A 26 27|||S|||，|||REQUIRED|||-NONE-|||0

S 86
A 23 24|||S|||，|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 33 34|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 49 50|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 54 55|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 61 62|||S|||，|||REQUIRED|||-NONE-|||0

S 87
A 34 35|||S|||，|||REQUIRED|||-NONE-|||0
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 52 52|||M|||人|||REQUIRED|||-NONE-|||0
A 58 59|||S|||，|||REQUIRED|||-NONE-|||0

S 88
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 89
A 20 20|||M|||会|||REQUIRED|||-NONE-|||0

S 90
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 91
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 92
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 25 26|||S|||的|||REQUIRED|||-NONE-|||0

S 93
A 1 1|||M|||于|||REQUIRED|||-NONE-|||0
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 35|||M|||，|||REQUIRED|||-NONE-|||0
A 53 54|||S|||，|||REQUIRED|||-NONE-|||0
A 86 87|||S|||，|||REQUIRED|||-NONE-|||0
A 97 98|||S|||欢|||REQUIRED|||-NONE-|||0

S 94
A 3 4|||S|||道|||REQUIRED|||-NONE-|||0
A 18 18|||M|||过|||REQUIRED|||-NONE-|||0
A 25 26|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 30 31|||S|||，|||REQUIRED|||-NONE-|||0

S 95
A 16 17|||S|||很|||REQUIRED|||-NONE-|||0

S 96
A 41 41|||M|||上|||REQUIRED|||-NONE-|||0
A 45 46|||S|||，|||REQUIRED|||-NONE-|||0
A 73 74|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 78 79|||S|||良|||REQUIRED|||-NONE-|||0

S 97
A 40 42|||S|||，|||REQUIRED|||-NONE-|||0
A 67 67|||M|||对|||REQUIRED|||-NONE-|||0
A 76 77|||S|||，|||REQUIRED|||-NONE-|||0

S 98
A 26 26|||M|||也|||REQUIRED|||-NONE-|||0

S 99
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 4 5|||S|||这 个|||REQUIRED|||-NONE-|||0
A 11 11|||M|||是|||REQUIRED|||-NONE-|||0
A 16 17|||S|||，|||REQUIRED|||-NONE-|||0
A 53 54|||S|||连|||REQUIRED|||-NONE-|||0
A 59 60|||S|||，|||REQUIRED|||-NONE-|||0
A 71 72|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 80 82|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 100
A 1 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
