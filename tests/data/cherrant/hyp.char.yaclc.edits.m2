S 1
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 11|||M|||都 是|||REQUIRED|||-NONE-|||0

S 2
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 3
A 4 4|||M|||篇|||REQUIRED|||-NONE-|||0

S 4
A 19 20|||S|||情|||REQUIRED|||-NONE-|||0
A 22 23|||S|||变|||REQUIRED|||-NONE-|||0

S 5
A 12 13|||S|||改 掉|||REQUIRED|||-NONE-|||0

S 6
A 9 13|||W|||期 待 今 天|||REQUIRED|||-NONE-|||0

S 7
A 19 24|||W|||可 以 轻 松 的|||REQUIRED|||-NONE-|||0
A 28 28|||M|||， 直|||REQUIRED|||-NONE-|||0

S 8
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 9
A 9 11|||S|||不 明 白|||REQUIRED|||-NONE-|||0

S 10
A 3 3|||M|||有|||REQUIRED|||-NONE-|||0

S 11
A 9 10|||S|||一 个|||REQUIRED|||-NONE-|||0

S 12
A 2 2|||M|||就|||REQUIRED|||-NONE-|||0

S 13
A 1 3|||S|||觉 得|||REQUIRED|||-NONE-|||0

S 14
A 9 9|||M|||，|||REQUIRED|||-NONE-|||0

S 15
A 1 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 34 34|||M|||还 在|||REQUIRED|||-NONE-|||0

S 16
A 10 15|||W|||在 这 边 的 文 章|||REQUIRED|||-NONE-|||0

S 17
A 7 7|||M|||一 个|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 4 7|||W|||旅 游 了|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0
A 21 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 19
A 7 8|||S|||又|||REQUIRED|||-NONE-|||0

S 20
A 1 3|||S|||小|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||到|||REQUIRED|||-NONE-|||0
A 10 11|||S|||只|||REQUIRED|||-NONE-|||0

S 22
A 13 16|||S|||都 要 坐|||REQUIRED|||-NONE-|||0
A 20 23|||S|||，|||REQUIRED|||-NONE-|||0

S 23
A 14 14|||M|||，|||REQUIRED|||-NONE-|||0

S 24
A 18 22|||W|||走 到 客 厅|||REQUIRED|||-NONE-|||0

S 25
A 14 14|||M|||也|||REQUIRED|||-NONE-|||0

S 26
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 29 30|||S|||作|||REQUIRED|||-NONE-|||0

S 27
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 28
A 9 10|||S|||很|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0
A 19 20|||S|||之|||REQUIRED|||-NONE-|||0

S 29
A 2 2|||M|||着|||REQUIRED|||-NONE-|||0

S 30
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 31
A 17 20|||W|||越 老 我|||REQUIRED|||-NONE-|||0

S 32
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 33
A 7 8|||S|||获 得|||REQUIRED|||-NONE-|||0
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 23 23|||M|||美|||REQUIRED|||-NONE-|||0
A 24 25|||S|||的 回|||REQUIRED|||-NONE-|||0

S 34
A 1 1|||M|||起|||REQUIRED|||-NONE-|||0
A 6 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 35
A 5 6|||S|||在|||REQUIRED|||-NONE-|||0

S 36
A 8 9|||S|||又|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 37
A 6 15|||W|||电 脑 ， 还 有 三 台 中 的|||REQUIRED|||-NONE-|||0
A 20 20|||M|||在|||REQUIRED|||-NONE-|||0

S 38
A 9 9|||M|||了|||REQUIRED|||-NONE-|||0
A 10 10|||M|||这 样|||REQUIRED|||-NONE-|||0

S 39
A 12 13|||S|||、|||REQUIRED|||-NONE-|||0
A 23 24|||S|||认|||REQUIRED|||-NONE-|||0

S 40
A 20 21|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 41
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 42
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 43
A 12 12|||M|||明|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 44
A 27 27|||M|||以|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 37|||W|||” 。|||REQUIRED|||-NONE-|||0

S 45
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||我 能|||REQUIRED|||-NONE-|||0
A 13 14|||S|||文|||REQUIRED|||-NONE-|||0

S 46
A 21 22|||S|||词|||REQUIRED|||-NONE-|||0
A 40 41|||S|||踪|||REQUIRED|||-NONE-|||0

S 47
A 22 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 48
A 5 6|||S|||台|||REQUIRED|||-NONE-|||0
A 14 15|||S|||台|||REQUIRED|||-NONE-|||0
A 21 22|||S|||台|||REQUIRED|||-NONE-|||0
A 32 33|||S|||用|||REQUIRED|||-NONE-|||0

S 49
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 50
A 22 23|||S|||跟|||REQUIRED|||-NONE-|||0

S 51
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 12 12|||M|||是 个|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 53
A 33 33|||M|||会|||REQUIRED|||-NONE-|||0

S 54
A 0 2|||S|||最 后|||REQUIRED|||-NONE-|||0

S 55
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 61 61|||M|||，|||REQUIRED|||-NONE-|||0

S 56
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 57
A 20 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A 1 1|||M|||在|||REQUIRED|||-NONE-|||0

S 59
A 10 11|||S|||会|||REQUIRED|||-NONE-|||0

S 60
A 9 9|||M|||， 所 以|||REQUIRED|||-NONE-|||0

S 61
A 4 5|||S|||得|||REQUIRED|||-NONE-|||0
A 23 24|||S|||。|||REQUIRED|||-NONE-|||0

S 62
A 4 4|||M|||的|||REQUIRED|||-NONE-|||0
A 6 7|||S|||率 是|||REQUIRED|||-NONE-|||0
A 15 16|||S|||瑙|||REQUIRED|||-NONE-|||0
A 21 23|||S|||瑙|||REQUIRED|||-NONE-|||0
A 34 35|||S|||瑙|||REQUIRED|||-NONE-|||0
A 37 40|||S|||z z|||REQUIRED|||-NONE-|||0

S 63
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 64
A 31 31|||M|||壮|||REQUIRED|||-NONE-|||0

S 65
A 12 12|||M|||。|||REQUIRED|||-NONE-|||0
A 21 21|||M|||年|||REQUIRED|||-NONE-|||0

S 66
A 5 5|||M|||开 始|||REQUIRED|||-NONE-|||0

S 67
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 68
A 8 10|||W|||我 都|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A 26 27|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 70
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 71
A 2 3|||S|||着|||REQUIRED|||-NONE-|||0

S 72
A 10 13|||S|||子|||REQUIRED|||-NONE-|||0
A 19 19|||M|||才|||REQUIRED|||-NONE-|||0

S 73
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 74
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 12 12|||M|||者|||REQUIRED|||-NONE-|||0

S 76
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 5 6|||S|||求|||REQUIRED|||-NONE-|||0
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0

S 78
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0
A 9 10|||S|||么|||REQUIRED|||-NONE-|||0

S 79
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 80
A 9 9|||M|||有|||REQUIRED|||-NONE-|||0
A 13 13|||M|||有|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 21 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 81
A 5 5|||M|||，|||REQUIRED|||-NONE-|||0

S 82
A 10 11|||S|||仿|||REQUIRED|||-NONE-|||0
A 24 27|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 83
A 6 6|||M|||那|||REQUIRED|||-NONE-|||0
A 7 7|||M|||起|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 84
A 12 12|||M|||像 很|||REQUIRED|||-NONE-|||0

S 85
A 4 4|||M|||上|||REQUIRED|||-NONE-|||0

S 86
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 2 2|||M|||来|||REQUIRED|||-NONE-|||0

S 87
A 25 26|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 27|||M|||争|||REQUIRED|||-NONE-|||0

S 88
A 6 7|||S|||小|||REQUIRED|||-NONE-|||0
A 14 14|||M|||让|||REQUIRED|||-NONE-|||0
A 36 36|||M|||有|||REQUIRED|||-NONE-|||0

S 89
A 8 8|||M|||，|||REQUIRED|||-NONE-|||0

S 90
A 4 5|||S|||候|||REQUIRED|||-NONE-|||0
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0
A 10 11|||S|||子|||REQUIRED|||-NONE-|||0

S 91
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 92
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 93
A 6 7|||S|||有|||REQUIRED|||-NONE-|||0

S 94
A 45 45|||M|||着|||REQUIRED|||-NONE-|||0

S 95
A 4 4|||M|||，|||REQUIRED|||-NONE-|||0

S 96
A 2 2|||M|||在|||REQUIRED|||-NONE-|||0

S 97
A 37 37|||M|||借 了|||REQUIRED|||-NONE-|||0

S 98
A 1 2|||S|||亲|||REQUIRED|||-NONE-|||0

S 99
A 25 26|||S|||地|||REQUIRED|||-NONE-|||0

S 100
A 6 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
