S 1
A 0 6|||W|||试 了 好 几 次|||REQUIRED|||-NONE-|||0
A 11 11|||M|||都|||REQUIRED|||-NONE-|||0

S 2
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 3
A 4 4|||M|||篇|||REQUIRED|||-NONE-|||0

S 4
A 22 23|||S|||变|||REQUIRED|||-NONE-|||0

S 5
A 13 13|||M|||地|||REQUIRED|||-NONE-|||0

S 6
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 7
A 21 22|||S|||地|||REQUIRED|||-NONE-|||0

S 8
A 21 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 9
A 7 7|||M|||有|||REQUIRED|||-NONE-|||0

S 10
A 2 3|||S|||、|||REQUIRED|||-NONE-|||0
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 11
A 7 10|||S|||的 其 他|||REQUIRED|||-NONE-|||0

S 12
A 7 8|||S|||一 个|||REQUIRED|||-NONE-|||0

S 13
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 14
A 9 9|||M|||，|||REQUIRED|||-NONE-|||0
A 21 21|||M|||向 学 生|||REQUIRED|||-NONE-|||0
A 23 23|||M|||，|||REQUIRED|||-NONE-|||0
A 25 25|||M|||就|||REQUIRED|||-NONE-|||0
A 31 35|||S|||l a y l|||REQUIRED|||-NONE-|||0
A 36 43|||S|||y|||REQUIRED|||-NONE-|||0

S 15
A 44 45|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 16
A 7 15|||W|||在 这 边 的 第 一 篇 文 章|||REQUIRED|||-NONE-|||0

S 17
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 18
A 4 7|||W|||旅 游 了|||REQUIRED|||-NONE-|||0

S 19
A 7 8|||S|||又|||REQUIRED|||-NONE-|||0
A 10 11|||S|||了|||REQUIRED|||-NONE-|||0
A 14 15|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 20
A 1 1|||M|||还 是|||REQUIRED|||-NONE-|||0

S 21
A 8 8|||M|||见|||REQUIRED|||-NONE-|||0

S 22
A 23 23|||M|||，|||REQUIRED|||-NONE-|||0

S 23
A 14 15|||S|||即|||REQUIRED|||-NONE-|||0

S 24
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 25
A 3 4|||S|||： “|||REQUIRED|||-NONE-|||0
A 22 22|||M|||”|||REQUIRED|||-NONE-|||0

S 26
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 27
A 18 25|||S|||聊 聊|||REQUIRED|||-NONE-|||0

S 28
A 9 10|||S|||很|||REQUIRED|||-NONE-|||0
A 12 13|||S|||，|||REQUIRED|||-NONE-|||0
A 19 20|||S|||之|||REQUIRED|||-NONE-|||0

S 29
A 2 2|||M|||向|||REQUIRED|||-NONE-|||0

S 30
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 17|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 31
A 2 3|||S|||人|||REQUIRED|||-NONE-|||0
A 21 21|||M|||有|||REQUIRED|||-NONE-|||0

S 32
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 9 10|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 33
A 7 8|||S|||有|||REQUIRED|||-NONE-|||0
A 9 10|||S|||的 体|||REQUIRED|||-NONE-|||0
A 12 13|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 34
A 6 6|||M|||好|||REQUIRED|||-NONE-|||0

S 35
A 5 6|||S|||在|||REQUIRED|||-NONE-|||0

S 36
A 8 9|||S|||又|||REQUIRED|||-NONE-|||0
A 11 11|||M|||了|||REQUIRED|||-NONE-|||0

S 37
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 38
A 10 10|||M|||的|||REQUIRED|||-NONE-|||0

S 39
A 12 13|||S|||、|||REQUIRED|||-NONE-|||0

S 40
A 13 14|||S|||是|||REQUIRED|||-NONE-|||0

S 41
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 42
A 15 17|||W|||） 。|||REQUIRED|||-NONE-|||0

S 43
A 27 28|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 28 32|||W|||过 去 所 有|||REQUIRED|||-NONE-|||0

S 44
A 27 27|||M|||以|||REQUIRED|||-NONE-|||0
A 28 29|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 35 37|||W|||” 。|||REQUIRED|||-NONE-|||0

S 45
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 7 7|||M|||我 能|||REQUIRED|||-NONE-|||0

S 46
A 21 22|||S|||词|||REQUIRED|||-NONE-|||0
A 38 39|||S|||好|||REQUIRED|||-NONE-|||0
A 40 46|||S|||妈 妈 一 起 吃 。|||REQUIRED|||-NONE-|||0

S 47
A 10 10|||M|||在|||REQUIRED|||-NONE-|||0

S 48
A 32 32|||M|||需|||REQUIRED|||-NONE-|||0

S 49
A 2 3|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 8 11|||S|||的 东 京 大|||REQUIRED|||-NONE-|||0
A 13 14|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 50
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 51
A 15 15|||M|||，|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 52
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 53
A 8 8|||M|||部|||REQUIRED|||-NONE-|||0

S 54
A 0 2|||S|||最 后|||REQUIRED|||-NONE-|||0

S 55
A 0 2|||S|||1 9 4|||REQUIRED|||-NONE-|||0
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 23 24|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 61 61|||M|||，|||REQUIRED|||-NONE-|||0
A 73 74|||S|||、|||REQUIRED|||-NONE-|||0

S 56
A 16 16|||M|||大 家|||REQUIRED|||-NONE-|||0
A 39 42|||S|||- 8 0|||REQUIRED|||-NONE-|||0

S 57
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 58
A 0 0|||M|||在|||REQUIRED|||-NONE-|||0

S 59
A 0 1|||S|||之|||REQUIRED|||-NONE-|||0

S 60
A 4 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 61
A 10 10|||M|||的|||REQUIRED|||-NONE-|||0

S 62
A 6 23|||S|||了|||REQUIRED|||-NONE-|||0
A 26 31|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 32 40|||S|||第|||REQUIRED|||-NONE-|||0
A 44 46|||S|||个 软 件|||REQUIRED|||-NONE-|||0

S 63
A 11 11|||M|||，|||REQUIRED|||-NONE-|||0
A 16 17|||S|||，|||REQUIRED|||-NONE-|||0

S 64
A 4 8|||W|||看 起 来 都|||REQUIRED|||-NONE-|||0

S 65
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0

S 66
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 67
A 7 8|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 31 32|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 68
A 8 10|||W|||我 都|||REQUIRED|||-NONE-|||0

S 69
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 70
A 6 6|||M|||有|||REQUIRED|||-NONE-|||0

S 71
A 2 3|||S|||着|||REQUIRED|||-NONE-|||0

S 72
A 10 11|||S|||， 很|||REQUIRED|||-NONE-|||0

S 73
A 3 4|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 74
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S 75
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 15 16|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 76
A 6 7|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 77
A 26 26|||M|||，|||REQUIRED|||-NONE-|||0
A 30 31|||S|||地|||REQUIRED|||-NONE-|||0

S 78
A 8 8|||M|||了|||REQUIRED|||-NONE-|||0
A 9 14|||S|||么|||REQUIRED|||-NONE-|||0
A 19 19|||M|||开 始 我 的 大 脑|||REQUIRED|||-NONE-|||0

S 79
A 3 5|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 26 26|||M|||都|||REQUIRED|||-NONE-|||0

S 80
A 26 27|||S|||量|||REQUIRED|||-NONE-|||0

S 81
A 5 5|||M|||，|||REQUIRED|||-NONE-|||0

S 82
A 19 19|||M|||跟 对 方|||REQUIRED|||-NONE-|||0
A 22 27|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 83
A 6 6|||M|||那|||REQUIRED|||-NONE-|||0
A 7 7|||M|||起|||REQUIRED|||-NONE-|||0

S 84
A 11 12|||S|||很|||REQUIRED|||-NONE-|||0

S 85
A 7 7|||M|||的 队 伍|||REQUIRED|||-NONE-|||0
A 17 18|||R|||-NONE-|||REQUIRED|||-NONE-|||0

S 86
A 14 14|||M|||事|||REQUIRED|||-NONE-|||0

S 87
A 27 27|||M|||争|||REQUIRED|||-NONE-|||0

S 88
A 36 36|||M|||有|||REQUIRED|||-NONE-|||0

S 89
A 5 6|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 8 8|||M|||，|||REQUIRED|||-NONE-|||0

S 90
A 4 5|||S|||候|||REQUIRED|||-NONE-|||0
A 8 8|||M|||了 一 个|||REQUIRED|||-NONE-|||0
A 10 11|||S|||子|||REQUIRED|||-NONE-|||0

S 91
A 7 7|||M|||会|||REQUIRED|||-NONE-|||0
A 11 12|||S|||的|||REQUIRED|||-NONE-|||0

S 92
A 1 1|||M|||了|||REQUIRED|||-NONE-|||0

S 93
A 9 12|||S|||、 矿|||REQUIRED|||-NONE-|||0
A 13 14|||S|||、|||REQUIRED|||-NONE-|||0
A 17 18|||S|||、|||REQUIRED|||-NONE-|||0

S 94
A 45 45|||M|||着|||REQUIRED|||-NONE-|||0

S 95
A 4 4|||M|||，|||REQUIRED|||-NONE-|||0

S 96
A 2 2|||M|||在|||REQUIRED|||-NONE-|||0

S 97
A 37 39|||S|||看|||REQUIRED|||-NONE-|||0

S 98
A 0 2|||R|||-NONE-|||REQUIRED|||-NONE-|||0
A 12 12|||M|||让|||REQUIRED|||-NONE-|||0

S 99
A 12 12|||M|||，|||REQUIRED|||-NONE-|||0

S 100
A 25 26|||S|||里|||REQUIRED|||-NONE-|||0
