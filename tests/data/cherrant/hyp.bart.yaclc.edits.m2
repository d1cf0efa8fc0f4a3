S 1
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 11|||M|||都 是|||REQUIRED|||-NONE-|||0

S 2
A 0 1|||S|||因|||REQUIRED|||-NONE-|||0
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 3
A 4 4|||M|||篇|||REQUIRED|||-NONE-|||0

S 4
A 22 24|||S|||加 重|||REQUIRED|||-NONE-|||0

S 5
A 12 13|||S|||改 掉|||REQUIRED|||-NONE-|||0

S 6
A 11 11|||M|||很|||REQUIRED|||-NONE-|||0

S 7
A 18 19|||S|||里|||REQUIRED|||-NONE-|||0
A 24 25|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 8
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 9
A 1 1|||M|||里|||REQUIRED|||-NONE-|||0
A 7 7|||M|||有|||REQUIRED|||-NONE-|||0

S 10
A 3 3|||M|||吃|||REQUIRED|||-NONE-|||0

S 11
A 4 4|||M|||，|||REQUIRED|||-NONE-|||0
A 10 10|||M|||是|||REQUIRED|||-NONE-|||0

S 12
A 1 1|||M|||么|||REQUIRED|||-NONE-|||0
A 8 8|||M|||的|||REQUIRED|||-NONE-|||0

S 13
A 1 3|||S|||觉 得|||REQUIRED|||-NONE-|||0

S 14
A 9 9|||M|||，|||REQUIRED|||-NONE-|||0
A 25 25|||M|||就|||REQUIRED|||-NONE-|||0

S 15
A 34 34|||M|||一 直|||REQUIRED|||-NONE-|||0

S 16
A 7 7|||M|||在 这 边 写 的|||REQUIRED|||-NONE-|||0
A 12 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 17
A 13 14|||S|||就 是|||REQUIRED|||-NONE-|||0

S 18
A 4 7|||W|||旅 游 了|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 19
A 7 8|||S|||又|||REQUIRED|||-NONE-|||0
A 10 12|||S|||地 点|||REQUIRED|||-NONE-|||0
A 12 15|||W|||了 点 头|||REQUIRED|||-NONE-|||0
A 7 8|||S|||又|||REQUIRED|||-NONE-|||0
A 10 12|||S|||地 点 了|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 20
A 1 1|||M|||还 是|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||到|||REQUIRED|||-NONE-|||0
A 10 11|||S|||只|||REQUIRED|||-NONE-|||0

S 22
A 13 13|||M|||都|||REQUIRED|||-NONE-|||0
A 23 23|||M|||，|||REQUIRED|||-NONE-|||0

S 23
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 13 16|||S|||和|||REQUIRED|||-NONE-|||0
A 19 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 12 12|||M|||了|||REQUIRED|||-NONE-|||0
A 18 22|||W|||走 到 客 厅|||REQUIRED|||-NONE-|||0

S 25
A 14 14|||M|||也|||REQUIRED|||-NONE-|||0

S 26
A 27 28|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 27
A 18 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 28
A 6 10|||S|||很|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0

S 29
A 2 2|||M|||着|||REQUIRED|||-NONE-|||0

S 30
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 17|||S|||摔|||REQUIRED|||-NONE-|||0

S 31
A 2 3|||S|||人|||REQUIRED|||-NONE-|||0

S 32
A 9 10|||S|||，|||REQUIRED|||-NONE-|||0

S 33
A 7 8|||S|||积 累|||REQUIRED|||-NONE-|||0
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

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

S 38
A 6 9|||S|||把|||REQUIRED|||-NONE-|||0
A 15 15|||M|||背 下 来|||REQUIRED|||-NONE-|||0

S 39
A 12 13|||S|||、|||REQUIRED|||-NONE-|||0
A 34 36|||S|||事 情|||REQUIRED|||-NONE-|||0

S 40
A 12 13|||S|||会 落|||REQUIRED|||-NONE-|||0
A 14 14|||M|||在|||REQUIRED|||-NONE-|||0

S 41
A 6 6|||M|||所 以|||REQUIRED|||-NONE-|||0

S 42
A 5 5|||M|||了|||REQUIRED|||-NONE-|||0

S 43
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 44
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 27|||M|||以|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 36 37|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 45
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||能|||REQUIRED|||-NONE-|||0

S 46
A 21 22|||S|||词|||REQUIRED|||-NONE-|||0
A 40 41|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 45 46|||S|||"|||REQUIRED|||-NONE-|||0

S 47
A 22 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 37 38|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 40 41|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 48
A 4 4|||M|||了|||REQUIRED|||-NONE-|||0
A 32 33|||S|||会|||REQUIRED|||-NONE-|||0

S 49
A 2 3|||S|||离|||REQUIRED|||-NONE-|||0

S 50
A 22 23|||S|||跟|||REQUIRED|||-NONE-|||0

S 51
A 15 15|||M|||，|||REQUIRED|||-NONE-|||0
A 21 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 12 12|||M|||个|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 53
A 12 12|||M|||会|||REQUIRED|||-NONE-|||0

S 54
A 0 2|||S|||最 后|||REQUIRED|||-NONE-|||0

S 55
A 23 26|||S|||：|||REQUIRED|||-NONE-|||0
A 57 58|||S|||到|||REQUIRED|||-NONE-|||0
A 61 61|||M|||，|||REQUIRED|||-NONE-|||0

S 56
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 5 8|||W|||开 始 写|||REQUIRED|||-NONE-|||0
A 4 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 8 8|||M|||写|||REQUIRED|||-NONE-|||0

S 57
A 28 28|||M|||要|||REQUIRED|||-NONE-|||0

S 58
A 0 0|||M|||在|||REQUIRED|||-NONE-|||0

S 59
A 10 11|||S|||会|||REQUIRED|||-NONE-|||0

S 60
A 6 6|||M|||很 少 的|||REQUIRED|||-NONE-|||0
A 9 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 61
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 10|||M|||的|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 62
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 21 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 34 35|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 37 40|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 63
A 11 11|||M|||，|||REQUIRED|||-NONE-|||0
A 16 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 64
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 65
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0

S 66
A 5 5|||M|||起|||REQUIRED|||-NONE-|||0

S 67
A 36 37|||S|||之|||REQUIRED|||-NONE-|||0

S 68
A 8 10|||W|||我 都|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 31 32|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 70
A 11 11|||M|||会|||REQUIRED|||-NONE-|||0

S 71
A 2 3|||S|||着|||REQUIRED|||-NONE-|||0

S 72
A 10 11|||S|||， 很|||REQUIRED|||-NONE-|||0

S 73
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 74
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A 12 12|||M|||部 门|||REQUIRED|||-NONE-|||0

S 76
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0

S 78
A 17 17|||M|||开 始|||REQUIRED|||-NONE-|||0

S 79
A 4 8|||S|||是 因 为|||REQUIRED|||-NONE-|||0

S 80
A 9 9|||M|||有|||REQUIRED|||-NONE-|||0
A 12 13|||S|||还 有|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 21 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 24 24|||M|||我|||REQUIRED|||-NONE-|||0

S 81
A 5 6|||S|||，|||REQUIRED|||-NONE-|||0

S 82
A 19 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 83
A 6 6|||M|||那|||REQUIRED|||-NONE-|||0
A 7 7|||M|||起|||REQUIRED|||-NONE-|||0
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 11|||M|||就|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 84
A 11 12|||S|||很|||REQUIRED|||-NONE-|||0

S 85
A 4 5|||S|||上 排 了|||REQUIRED|||-NONE-|||0
A 7 10|||S|||的|||REQUIRED|||-NONE-|||0
A 16 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 86
A 0 1|||S|||之|||REQUIRED|||-NONE-|||0
A 18 18|||M|||的|||REQUIRED|||-NONE-|||0

S 87
A 27 27|||M|||争|||REQUIRED|||-NONE-|||0

S 88
A 30 31|||S|||嘴|||REQUIRED|||-NONE-|||0
A 36 36|||M|||有|||REQUIRED|||-NONE-|||0

S 89
A 8 8|||M|||，|||REQUIRED|||-NONE-|||0
A 13 13|||M|||有|||REQUIRED|||-NONE-|||0
A 18 18|||M|||的|||REQUIRED|||-NONE-|||0

S 90
A 4 5|||S|||候|||REQUIRED|||-NONE-|||0
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0
A 10 11|||S|||子|||REQUIRED|||-NONE-|||0

S 91
A 2 3|||S|||，|||REQUIRED|||-NONE-|||0

S 92
A 1 2|||S|||到|||REQUIRED|||-NONE-|||0
A 9 12|||S|||产 生|||REQUIRED|||-NONE-|||0

S 93
A 6 7|||S|||有|||REQUIRED|||-NONE-|||0

S 94
A 9 10|||S|||游|||REQUIRED|||-NONE-|||0

S 95
A 2 2|||M|||让 我|||REQUIRED|||-NONE-|||0

S 96
A 2 2|||M|||去|||REQUIRED|||-NONE-|||0

S 97
A 33 34|||S|||去|||REQUIRED|||-NONE-|||0
A 37 37|||M|||找|||REQUIRED|||-NONE-|||0
A 43 44|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 98
A 1 2|||S|||亲|||REQUIRED|||-NONE-|||0
A 10 11|||S|||可|||REQUIRED|||-NONE-|||0

S 99
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0

S 100
A 25 26|||S|||里|||REQUIRED|||-NONE-|||0
