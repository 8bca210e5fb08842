module karp

go 1.19
