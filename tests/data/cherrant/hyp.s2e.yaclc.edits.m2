S 1
A 3 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 11 11|||M|||都|||REQUIRED|||-NONE-|||0

S 2
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 3
A 4 4|||M|||篇|||REQUIRED|||-NONE-|||0

S 4
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 5
A 12 13|||S|||保 持|||REQUIRED|||-NONE-|||0

S 6
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 7
A 17 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 24 25|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 8
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 9
A 1 1|||M|||里|||REQUIRED|||-NONE-|||0

S 10
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 11
A 7 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 10|||M|||是|||REQUIRED|||-NONE-|||0

S 12
A 8 8|||M|||的|||REQUIRED|||-NONE-|||0

S 13
A 1 3|||S|||觉 得|||REQUIRED|||-NONE-|||0

S 14
A 9 9|||M|||，|||REQUIRED|||-NONE-|||0

S 15
A 1 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 16
A 3 4|||S|||，|||REQUIRED|||-NONE-|||0
A 7 7|||M|||的|||REQUIRED|||-NONE-|||0
A 12 17|||S|||！|||REQUIRED|||-NONE-|||0

S 17
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 19
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 20
A 1 3|||S|||小|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||到|||REQUIRED|||-NONE-|||0
A 10 11|||S|||只|||REQUIRED|||-NONE-|||0

S 22
A 13 15|||S|||都 都 去|||REQUIRED|||-NONE-|||0
A 23 23|||M|||，|||REQUIRED|||-NONE-|||0

S 23
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 24
A 21 22|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 25
A 3 4|||S|||：|||REQUIRED|||-NONE-|||0

S 26
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 27
A 18 20|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 22 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 28
A 6 10|||S|||很|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0
A 19 20|||S|||之|||REQUIRED|||-NONE-|||0
A 26 28|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 29
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 30
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 31
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 32
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 33
A 7 8|||S|||获|||REQUIRED|||-NONE-|||0
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 24 25|||S|||回|||REQUIRED|||-NONE-|||0

S 34
A 1 1|||M|||起|||REQUIRED|||-NONE-|||0
A 6 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 35
A 5 6|||S|||在|||REQUIRED|||-NONE-|||0

S 36
A 8 9|||S|||我 又|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 37
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 14 15|||S|||，|||REQUIRED|||-NONE-|||0
A 17 17|||M|||由|||REQUIRED|||-NONE-|||0

S 38
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 39
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 40
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 41
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 42
A 5 5|||M|||了|||REQUIRED|||-NONE-|||0
A 15 15|||M|||的|||REQUIRED|||-NONE-|||0

S 43
A 25 27|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 28 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 36|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 44
A 1 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 22 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 27|||M|||以|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 36 37|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 45
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||我 能|||REQUIRED|||-NONE-|||0
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 13 14|||S|||文|||REQUIRED|||-NONE-|||0

S 46
A 21 22|||S|||词|||REQUIRED|||-NONE-|||0
A 29 30|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 47
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 48
A 4 4|||M|||了|||REQUIRED|||-NONE-|||0
A 32 33|||S|||会|||REQUIRED|||-NONE-|||0

S 49
A 2 3|||S|||离|||REQUIRED|||-NONE-|||0

S 50
A 22 23|||S|||和|||REQUIRED|||-NONE-|||0

S 51
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 53
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 54
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 55
A 23 25|||S|||：|||REQUIRED|||-NONE-|||0
A 57 58|||S|||到|||REQUIRED|||-NONE-|||0
A 61 61|||M|||，|||REQUIRED|||-NONE-|||0
A 73 74|||S|||、|||REQUIRED|||-NONE-|||0

S 56
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 57
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 59
A 3 3|||M|||我|||REQUIRED|||-NONE-|||0

S 60
A 9 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 61
A 10 10|||M|||的|||REQUIRED|||-NONE-|||0

S 62
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 63
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 16 17|||S|||，|||REQUIRED|||-NONE-|||0

S 64
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 65
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 66
A 5 5|||M|||起|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 67
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 68
A 8 10|||W|||我 都|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 69
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 70
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 71
A 2 3|||S|||着|||REQUIRED|||-NONE-|||0
A 6 8|||S|||描 绍|||REQUIRED|||-NONE-|||0

S 72
A 10 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 73
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 74
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 76
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 22 23|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0

S 78
A 8 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 79
A 3 7|||S|||原 因|||REQUIRED|||-NONE-|||0

S 80
A 8 9|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 12 13|||S|||和|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 81
A 5 6|||S|||，|||REQUIRED|||-NONE-|||0
A 10 11|||S|||。|||REQUIRED|||-NONE-|||0

S 82
A 10 11|||S|||仿|||REQUIRED|||-NONE-|||0
A 22 27|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 83
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 6 6|||M|||那|||REQUIRED|||-NONE-|||0

S 84
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 85
A 4 5|||S|||上 排 着|||REQUIRED|||-NONE-|||0
A 7 10|||S|||的|||REQUIRED|||-NONE-|||0
A 11 12|||S|||伍 ，|||REQUIRED|||-NONE-|||0
A 16 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 86
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 87
A 10 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 27 27|||M|||争|||REQUIRED|||-NONE-|||0

S 88
A 25 25|||M|||会|||REQUIRED|||-NONE-|||0
A 30 31|||S|||嘴|||REQUIRED|||-NONE-|||0
A 36 36|||M|||有|||REQUIRED|||-NONE-|||0

S 89
A 18 18|||M|||的|||REQUIRED|||-NONE-|||0

S 90
A 4 5|||S|||候|||REQUIRED|||-NONE-|||0
A 8 8|||M|||了 一 个|||REQUIRED|||-NONE-|||0
A 10 11|||S|||子|||REQUIRED|||-NONE-|||0

S 91
A 11 12|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 92
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 93
A 9 11|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 94
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 95
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 96
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 97
A 13 13|||M|||扮|||REQUIRED|||-NONE-|||0

S 98
A 1 2|||S|||亲|||REQUIRED|||-NONE-|||0

S 99
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0
A 27 30|||S|||耍|||REQUIRED|||-NONE-|||0

S 100
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 25 26|||S|||里|||REQUIRED|||-NONE-|||0
